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
  }
  return known[status] ?? status.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase())
}
