import { getEnv } from '~/env.server'

import { PLAN_DEFINITIONS, type PlanDefinition, planSettings } from './plans'

export interface Plan extends PlanDefinition {
  stripePriceId: string
  polarProductId: string
}

export function getPlans(): Plan[] {
  const env = getEnv()
  return PLAN_DEFINITIONS.map((plan) => ({
    ...plan,
    stripePriceId: env[planSettings(plan).stripePrice],
    polarProductId: env[planSettings(plan).polarProduct],
  }))
}

export function planByStripePrice(priceId: string | null | undefined) {
  return priceId ? getPlans().find((plan) => plan.stripePriceId === priceId) : undefined
}
