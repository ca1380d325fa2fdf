import { vi } from 'vitest'

/** `store.server.ts` for a `vi.mock` factory: every write applies, no user is found. */
export function mockedLedgerStore() {
  return {
    applySubscriptionEvent: vi.fn(async () => 'applied'),
    recordPaymentEvent: vi.fn(async () => 'applied'),
    recordEvent: vi.fn(async () => true),
    recordPaymentFailure: vi.fn(async () => 'notified'),
    findUserIdBy: vi.fn(async () => null),
  }
}
