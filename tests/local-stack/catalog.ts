/**
 * The plan catalogue the Stripe and Polar emulators are seeded with (one product and one
 * recurring price per plan): whoever starts the stack passes it in; the product's is
 * app/billing/catalog.json, which the app checks.
 */
import catalogJson from './catalog.json'

export interface CatalogPlan {
  /** Short name, written to the Stripe objects' `metadata.plan` and lookup key. */
  key: string
  name: string
  description: string
  /** Price in minor units (cents). */
  amount: number
  currency: string
  interval: 'month' | 'year'
  features: string[]
  stripe: { productId: string; priceId: string }
  polar: { productId: string }
}

export interface Catalog {
  plans: readonly CatalogPlan[]
}

/** The stand-ins' sample catalogue (catalog.json), for their own tests. */
export const LOCAL_CATALOG = catalogJson as Catalog

export function catalogPlan(catalog: Catalog, key: string): CatalogPlan {
  const plan = catalog.plans.find((candidate) => candidate.key === key)
  if (!plan) throw new Error(`catalog has no plan "${key}"`)
  return plan
}
