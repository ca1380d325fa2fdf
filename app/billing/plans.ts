/**
 * `catalog.json`, checked on load. A real account's ids come from settings; the catalogue's are
 * development defaults, refused in production. Server code only.
 */
import { z } from 'zod'

import catalogJson from './catalog.json' with { type: 'json' }
import { PROVIDER_SETTINGS } from './provider-settings'

type Providers = (typeof PROVIDER_SETTINGS)[number]

const baseSchema = z.strictObject({
  /** Short name: the page `/subscribe/<key>`, the provider's metadata, the settings' names. */
  key: z.string().regex(/^[a-z][a-z0-9]*$/, 'must be lower-case letters and digits, e.g. pro'),
  /** Shown everywhere, and how a subscription's plan is recognised: unique. */
  name: z.string().trim().min(1, 'must not be empty'),
  description: z.string().trim().min(1, 'must not be empty'),
  amount: z.int('must be a whole number of minor units (cents)').positive('must be above 0'),
  currency: z.string().regex(/^[a-z]{3}$/, 'must be a lower-case ISO 4217 code, e.g. usd'),
  interval: z.enum(['month', 'year'], 'must be "month" or "year"'),
  features: z.array(z.string().trim().min(1, 'must not be empty')),
  highlighted: z.boolean().optional(),
})

/** And each provider's entry, under its id: the local stack's ids (its settings check them). */
const planSchema = baseSchema.extend(
  Object.fromEntries(PROVIDER_SETTINGS.map(({ id, planIds }) => [id, planIds.catalog])) as {
    [P in Providers as P['id']]: P['planIds']['catalog']
  },
)

const catalogSchema = z
  .strictObject({ plans: z.array(planSchema).min(1, 'must name at least one plan') })
  .superRefine(({ plans }, ctx) => {
    const seen = new Set<string>()
    plans.forEach((plan, index) => {
      const ids = PROVIDER_SETTINGS.flatMap(({ id }) => Object.values(plan[id]))
      for (const value of [`key ${plan.key}`, `name ${plan.name}`, ...ids]) {
        const message = `${value} is an earlier plan's too`
        if (seen.has(value)) ctx.addIssue({ code: 'custom', path: ['plans', index], message })
        seen.add(value)
      }
    })
  })

export type Catalog = z.infer<typeof catalogSchema>
export type PlanDefinition = Catalog['plans'][number]
export type PlanBase = z.infer<typeof baseSchema>

/** The error names each wrong field (`plans[1].<provider>.<id>`). */
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

export type PlanSettingName = `${Providers['planIds']['prefix']}${string}`

export const planIdSetting = (prefix: string, plan: Pick<PlanBase, 'key'>) =>
  `${prefix}${plan.key.toUpperCase()}`

export function planIdSettings(plans: readonly PlanDefinition[]): Record<PlanSettingName, string> {
  return Object.fromEntries(
    PROVIDER_SETTINGS.flatMap(({ id, planIds }) =>
      plans.map((plan) => [
        planIdSetting(planIds.prefix, plan),
        (plan[id] as Record<string, string>)[planIds.id],
      ]),
    ),
  )
}

/** The next invoice (minor units) after a change of price at `at` (ms) in `period`, prorated by
 * time as the providers do: the one figure the plan change page and the mails quote. */
export function nextInvoice(
  period: { start: string; end: string },
  currentAmount: number,
  targetAmount: number,
  at: number,
) {
  const [start, end] = [Date.parse(period.start), Date.parse(period.end)]
  const share = end > start ? Math.max(0, Math.min(1, (end - at) / (end - start))) : 0
  const credit = Math.round(currentAmount * share)
  const charge = Math.round(targetAmount * share)
  const total = targetAmount + charge - credit
  return {
    credit,
    charge,
    nextInvoiceAmount: Math.max(0, total),
    carriedCredit: Math.max(0, -total),
    nextInvoiceDate: period.end,
  }
}
