import type { SubscriptionRow } from '~/subscriptions/types'

/** Statuses after which a provider will never charge again. */
const FINAL_STATUSES = new Set(['canceled', 'incomplete_expired', 'revoked'])

export type ProviderSubscription = { provider: string; id: string }

const mayStillCharge = (status?: string | null) => !!status && !FINAL_STATUSES.has(status)

/**
 * The provider subscription that must be ended before the account can go, or null.
 * Anything not final counts as live, including a cancellation scheduled for the period
 * end: the customer keeps paying until then, and would have no account to manage it.
 */
export function subscriptionToEnd(
  row: (Pick<SubscriptionRow, 'provider' | 'status'> & Record<string, unknown>) | null,
): ProviderSubscription | null {
  if (!mayStillCharge(row?.status) || !row?.provider) return null
  const id = row[`${row.provider}_subscription_id`]
  return typeof id === 'string' && id ? { provider: row.provider, id } : null
}

/**
 * Every subscription to end before an account goes: the one on the user's row, and every
 * other one the providers list for the user (a second purchase our row never tracked) that
 * may still charge. Each once.
 */
export function subscriptionsToEnd(
  row: Parameters<typeof subscriptionToEnd>[0],
  listed: Record<string, { id: string; status: string }[]>,
): ProviderSubscription[] {
  const tracked = subscriptionToEnd(row)
  const all = tracked ? [tracked] : []
  for (const [provider, subscriptions] of Object.entries(listed))
    for (const { id, status } of subscriptions)
      if (mayStillCharge(status) && !all.some((s) => s.provider === provider && s.id === id))
        all.push({ provider, id })
  return all
}
