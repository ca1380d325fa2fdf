/**
 * The plan catalogue the Stripe and Polar emulators are seeded with: one product and one
 * recurring price per plan, under fixed ids. Whoever starts the stack passes it in
 * (`startLocalStack({ catalog })`; the product's is app/billing/catalog.json, which the app
 * checks and hands over). `catalog.json` beside this file is the stand-ins' own sample, for
 * their tests and for their command lines when given no catalogue file.
 */
import { readFileSync } from 'node:fs'

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

/** Checks a catalogue's shape and that no id is used twice; returns it typed. */
export function parseCatalog(value: unknown): Catalog {
  const plans = (value as { plans?: unknown } | null)?.plans
  if (!Array.isArray(plans) || plans.length === 0)
    throw new Error('catalog: plans must be a non-empty array')
  const ids = new Set<string>()
  for (const [index, plan] of plans.entries()) {
    const p = plan as Partial<CatalogPlan>
    const where = `catalog: plans[${index}]`
    for (const field of ['key', 'name', 'description', 'currency'] as const) {
      if (typeof p[field] !== 'string') throw new Error(`${where}.${field} must be a string`)
    }
    if (!Number.isInteger(p.amount) || (p.amount as number) < 0)
      throw new Error(`${where}.amount must be a whole number of minor units`)
    if (p.interval !== 'month' && p.interval !== 'year')
      throw new Error(`${where}.interval must be "month" or "year"`)
    if (!Array.isArray(p.features) || p.features.some((f) => typeof f !== 'string'))
      throw new Error(`${where}.features must be an array of strings`)
    const planIds = [p.stripe?.productId, p.stripe?.priceId, p.polar?.productId]
    for (const id of planIds) {
      if (typeof id !== 'string' || !id)
        throw new Error(
          `${where}: stripe.productId, stripe.priceId and polar.productId are required`,
        )
      if (ids.has(id)) throw new Error(`${where}: id ${id} is used twice`)
      ids.add(id)
    }
  }
  return value as Catalog
}

/** The stand-ins' sample catalogue (catalog.json). */
export const LOCAL_CATALOG: Catalog = parseCatalog(catalogJson)

/** The catalogue in this JSON file (a command line's argument), or the sample without one. */
export function readCatalogFile(file: string | undefined): Catalog {
  if (!file) return LOCAL_CATALOG
  try {
    return parseCatalog(JSON.parse(readFileSync(file, 'utf8')))
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error })
  }
}

/** The plan with this key; throws when the catalogue has none. */
export function catalogPlan(catalog: Catalog, key: string): CatalogPlan {
  const plan = catalog.plans.find((candidate) => candidate.key === key)
  if (!plan) throw new Error(`catalog has no plan "${key}"`)
  return plan
}
