/** Human label for any subscription or payment status, including ones we do not special-case. */
export function statusLabel(status: string | null | undefined) {
  if (!status) return 'No subscription'
  const known: Record<string, string> = {
    active: 'Active',
    trialing: 'Trial',
    past_due: 'Past due',
    canceled: 'Canceled',
    unpaid: 'Unpaid',
    incomplete: 'Incomplete',
    incomplete_expired: 'Expired',
    paused: 'Paused',
    paid: 'Paid',
    succeeded: 'Paid',
    refunded: 'Refunded',
    // A Stripe invoice whose payment failed (invoice.payment_failed).
    failed: 'Failed',
  }
  return known[status] ?? status.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase())
}

/** Statuses in which a subscription still gives access (a second purchase makes no sense). */
export const LIVE_STATUSES = new Set(['active', 'trialing', 'past_due'])

export function isLiveStatus(status: string | null | undefined) {
  return Boolean(status && LIVE_STATUSES.has(status))
}

/** The one wording of a failed renewal, on the dashboard, billing and pricing pages. */
export const PAST_DUE_NOTICE =
  'Your last payment did not go through. Update your payment method to keep your plan.'
/** The action that fixes it: it opens the provider's billing portal. */
export const PAST_DUE_ACTION = 'Update payment method'
