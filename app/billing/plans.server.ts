import { getEnv } from '~/env.server'

import { PLAN_DEFINITIONS, type PlanBase, planIdSetting } from './plans'
import { PROVIDER_SETTINGS } from './provider-settings'

/** A plan with its id at each provider (`plan.ids[providerId]`), from that provider's setting. */
export type Plan = PlanBase & { ids: Record<string, string> }

export function getPlans(): Plan[] {
  const env = getEnv() as unknown as Record<string, string>
  return PLAN_DEFINITIONS.map((plan) => ({
    ...plan,
    ids: Object.fromEntries(
      PROVIDER_SETTINGS.map(({ id, planIds }) => [id, env[planIdSetting(planIds.prefix, plan)]]),
    ),
  }))
}

export const planById = (provider: string, id: string | null | undefined) =>
  id ? getPlans().find((plan) => plan.ids[provider] === id) : undefined
