/** A billing-history row's wording: the contract's rule for provider B, applied to every provider. */
export function paymentDescription(
  name: string | null | undefined,
  kind: 'payment' | 'refund' = 'payment',
) {
  return `${name?.trim() || 'Subscription'} ${kind}`
}
