import { getEnv } from '~/env.server'
import { PLAN_DEFINITIONS, type PlanDefinition } from './plans'

/** A plan with the provider ids configured for this deployment. */
export interface Plan extends PlanDefinition {
  stripePriceId: string
  polarProductId: string
}

/** The plans with this deployment's Stripe price and Polar product ids. */
export function getPlans(): Plan[] {
  const env = getEnv()
  const ids = {
    starter: { stripePriceId: env.STRIPE_PRICE_STARTER, polarProductId: env.POLAR_PRODUCT_STARTER },
    pro: { stripePriceId: env.STRIPE_PRICE_PRO, polarProductId: env.POLAR_PRODUCT_PRO },
  }
  return PLAN_DEFINITIONS.map((plan) => ({ ...plan, ...ids[plan.key] }))
}

export function planByStripePrice(priceId: string | null | undefined) {
  return priceId ? getPlans().find((plan) => plan.stripePriceId === priceId) : undefined
}
