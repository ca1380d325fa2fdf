import type { SubscriptionRow } from '~/subscriptions/types'

/** Statuses after which a provider will never charge again. */
const FINAL_STATUSES = new Set(['canceled', 'incomplete_expired', 'revoked'])

export type ProviderSubscription =
  { provider: 'stripe'; id: string } | { provider: 'polar'; id: string }

/**
 * The provider subscription that must be ended before the account can go, or null.
 * Anything not final counts as live, including a cancellation scheduled for the period
 * end: the customer keeps paying until then, and would have no account to manage it.
 */
export function subscriptionToEnd(
  row: Pick<
    SubscriptionRow,
    'provider' | 'status' | 'stripe_subscription_id' | 'polar_subscription_id'
  > | null,
): ProviderSubscription | null {
  if (!row?.status || FINAL_STATUSES.has(row.status)) return null
  if (row.provider === 'stripe' && row.stripe_subscription_id)
    return { provider: 'stripe', id: row.stripe_subscription_id }
  if (row.provider === 'polar' && row.polar_subscription_id)
    return { provider: 'polar', id: row.polar_subscription_id }
  return null
}
