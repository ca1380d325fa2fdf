/** A billing-history row's wording: the contract's rule for provider B, applied to every provider. */
export function paymentDescription(name: string | null | undefined) {
  return `${name?.trim() || 'Subscription'} payment`
}
