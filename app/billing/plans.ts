/**
 * `catalog.json`, checked on load. A real account's ids come from settings; the catalogue's are
 * development defaults, refused in production. Server code only.
 */
import { z } from 'zod'

import catalogJson from './catalog.json' with { type: 'json' }

export const stripePriceId = z
  .string()
  .trim()
  .regex(/^price_[A-Za-z0-9_]+$/, 'must be a Stripe price id (price_…), not a product id')

export const polarProductId = z
  .string()
  .trim()
  .regex(
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    'must be a Polar product id (a UUID)',
  )

const planSchema = z.strictObject({
  /** Short name: the page `/subscribe/<key>`, Stripe's `metadata.plan`, the settings' names. */
  key: z.string().regex(/^[a-z][a-z0-9]*$/, 'must be lower-case letters and digits, e.g. pro'),
  /** Shown everywhere, and how a subscription's plan is recognised: unique. */
  name: z.string().trim().min(1, 'must not be empty'),
  description: z.string().trim().min(1, 'must not be empty'),
  amount: z.int('must be a whole number of minor units (cents)').positive('must be above 0'),
  currency: z.string().regex(/^[a-z]{3}$/, 'must be a lower-case ISO 4217 code, e.g. usd'),
  interval: z.enum(['month', 'year'], 'must be "month" or "year"'),
  features: z.array(z.string().trim().min(1, 'must not be empty')),
  highlighted: z.boolean().optional(),
  /** The local stack's ids for this plan (a real account's come from configuration). */
  stripe: z.strictObject({
    productId: z.string().regex(/^prod_[A-Za-z0-9_]+$/, 'must be a Stripe product id (prod_…)'),
    priceId: stripePriceId,
  }),
  polar: z.strictObject({ productId: polarProductId }),
})

const catalogSchema = z
  .strictObject({ plans: z.array(planSchema).min(1, 'must name at least one plan') })
  .superRefine(({ plans }, ctx) => {
    const seen = new Set<string>()
    plans.forEach(({ key, name, stripe, polar }, index) => {
      for (const value of [
        `key ${key}`,
        `name ${name}`,
        stripe.productId,
        stripe.priceId,
        polar.productId,
      ]) {
        if (seen.has(value))
          ctx.addIssue({
            code: 'custom',
            path: ['plans', index],
            message: `${value} is an earlier plan's too`,
          })
        seen.add(value)
      }
    })
  })

export type Catalog = z.infer<typeof catalogSchema>
export type PlanDefinition = Catalog['plans'][number]

/** The error names each wrong field (`plans[1].stripe.priceId`). */
export function parseCatalog(value: unknown): Catalog {
  const result = catalogSchema.safeParse(value)
  if (!result.success)
    throw new Error(
      `Invalid plan catalogue (app/billing/catalog.json):\n${z.prettifyError(result.error)}`,
    )
  return result.data
}

export const PLAN_CATALOG: Catalog = parseCatalog(catalogJson)

export const PLAN_DEFINITIONS: readonly PlanDefinition[] = PLAN_CATALOG.plans

export function catalogPlan(key: string): PlanDefinition {
  const plan = PLAN_DEFINITIONS.find((candidate) => candidate.key === key)
  if (!plan) throw new Error(`The plan catalogue has no plan "${key}"`)
  return plan
}

export type PlanSettingName = `STRIPE_PRICE_${string}` | `POLAR_PRODUCT_${string}`

export function planSettings(plan: Pick<PlanDefinition, 'key'>) {
  const name = plan.key.toUpperCase()
  return {
    stripePrice: `STRIPE_PRICE_${name}`,
    polarProduct: `POLAR_PRODUCT_${name}`,
  } as const satisfies Record<string, PlanSettingName>
}

export function planIdSettings(
  plans: readonly Pick<PlanDefinition, 'key' | 'stripe' | 'polar'>[],
): Record<PlanSettingName, string> {
  return Object.fromEntries([
    ...plans.map((plan) => [planSettings(plan).stripePrice, plan.stripe.priceId]),
    ...plans.map((plan) => [planSettings(plan).polarProduct, plan.polar.productId]),
  ])
}
