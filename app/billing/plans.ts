/**
 * The product's plans: the one source of truth for names, prices and features.
 * Provider ids differ per account, so they come from configuration (see plans.server.ts);
 * the defaults below are the ids the local Stripe and Polar emulators are seeded with.
 */
export type PlanKey = 'starter' | 'pro'

export interface PlanDefinition {
  key: PlanKey
  name: string
  description: string
  /** Price in minor units (cents). */
  amount: number
  currency: 'usd'
  interval: 'month' | 'year'
  features: string[]
  highlighted?: boolean
}

export const PLAN_DEFINITIONS: readonly PlanDefinition[] = [
  {
    key: 'starter',
    name: 'Starter',
    description: 'For individuals getting a project off the ground.',
    amount: 900,
    currency: 'usd',
    interval: 'month',
    features: ['1 project', 'Email support', 'Basic analytics'],
  },
  {
    key: 'pro',
    name: 'Pro',
    description: 'For growing teams that need more room and faster help.',
    amount: 2900,
    currency: 'usd',
    interval: 'month',
    features: ['Unlimited projects', 'Priority support', 'Advanced analytics', 'Team members'],
    highlighted: true,
  },
]

/** Provider ids the local emulators use for each plan (and the configuration defaults). */
export const LOCAL_PLAN_IDS: Record<
  PlanKey,
  { stripeProductId: string; stripePriceId: string; polarProductId: string }
> = {
  starter: {
    stripeProductId: 'prod_starter',
    stripePriceId: 'price_starter_monthly',
    polarProductId: '5b0d3f4e-7c1a-4c4e-9f0a-0000000000a1',
  },
  pro: {
    stripeProductId: 'prod_pro',
    stripePriceId: 'price_pro_monthly',
    polarProductId: '5b0d3f4e-7c1a-4c4e-9f0a-0000000000b2',
  },
}
