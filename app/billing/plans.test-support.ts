import { PLAN_DEFINITIONS, type PlanDefinition } from './plans'

/** The catalogue's plan with this key, with its local ids (tests and tools). */
export function catalogPlan(key: string): PlanDefinition {
  const plan = PLAN_DEFINITIONS.find((candidate) => candidate.key === key)
  if (!plan) throw new Error(`The plan catalogue has no plan "${key}"`)
  return plan
}
