import { vi } from 'vitest'

/**
 * The ledger store (`store.server.ts`) as the webhook dispatch tests mock it: every write
 * applies, no user is found by provider id. Use in a `vi.mock` factory.
 */
export function mockedLedgerStore() {
  return {
    applySubscriptionEvent: vi.fn(async () => 'applied'),
    recordPaymentEvent: vi.fn(async () => 'applied'),
    recordEvent: vi.fn(async () => true),
    recordPaymentFailure: vi.fn(async () => 'notified'),
    findUserIdBy: vi.fn(async () => null),
  }
}
