import type { SubscriptionRow } from '~/subscriptions/types'

/** Statuses after which a provider will never charge again. */
const FINAL_STATUSES = new Set(['canceled', 'incomplete_expired', 'revoked'])

export type ProviderSubscription = { provider: string; id: string }

const mayStillCharge = (status?: string | null) => !!status && !FINAL_STATUSES.has(status)

/**
 * Anything not final counts as live, including a cancellation scheduled for the period end:
 * the customer keeps paying until then, and would have no account to manage it.
 */
export function subscriptionToEnd(
  row: (Pick<SubscriptionRow, 'provider' | 'status'> & Record<string, unknown>) | null,
): ProviderSubscription | null {
  if (!mayStillCharge(row?.status) || !row?.provider) return null
  const id = row[`${row.provider}_subscription_id`]
  return typeof id === 'string' && id ? { provider: row.provider, id } : null
}

/** The row's and each other one a provider lists for the user that may still charge, once each. */
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
