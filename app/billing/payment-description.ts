/**
 * The one wording of a billing-history row, for every provider: the plan's or product's
 * name, or "Subscription", then "payment" or "refund" — the interface contract's rule for
 * provider B, applied to all so that the history reads the same.
 */
export function paymentDescription(
  name: string | null | undefined,
  kind: 'payment' | 'refund' = 'payment',
) {
  return `${name?.trim() || 'Subscription'} ${kind}`
}
