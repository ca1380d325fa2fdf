/**
 * The one wording of a billing-history row, for both providers: the plan's (Stripe) or
 * product's (Polar) name, or "Subscription", then "payment" or "refund" — the interface
 * contract's rule for Polar, applied to Stripe too so that the history reads the same.
 */
export function paymentDescription(
  name: string | null | undefined,
  kind: 'payment' | 'refund' = 'payment',
) {
  return `${name?.trim() || 'Subscription'} ${kind}`
}
