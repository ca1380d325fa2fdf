import { z } from 'zod'

// The zod types of configuration values: app/env.server.ts and each provider's settings.
export const httpUrl = z
  .string()
  .refine((value) => /^https?:\/\//.test(value) && URL.canParse(value), 'must be an http(s) URL')
  .transform((value) => value.replace(/\/+$/, ''))

export const optionalString = z
  .string()
  .optional()
  .transform((value) => value?.trim() || undefined)

export const optionalUrl = optionalString.pipe(httpUrl.optional())

/** An optional number in [min, max]; unset or empty takes `fallback`. */
export const optionalNumber = (min: number, max: number, fallback: number) =>
  optionalString
    .transform((value) => (value === undefined ? fallback : Number(value)))
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))

export const optionalTrueOrFalse = optionalString
  .transform((value) => value?.toLowerCase())
  .pipe(
    z.enum(['true', 'false'], 'must be true or false (any letter case), or left unset').optional(),
  )

/** What a billing provider needs configured (its folder's `settings.ts`). */
export interface ProviderSettings {
  id: string
  /** Its variables, checked at start-up when it is one of BILLING_PROVIDERS. */
  schema: Record<string, z.ZodType>
  /** The local stack's values of them (development and tests only). */
  localDefaults: Record<string, string>
  /** Keys the local stack publishes: a production server refuses them. */
  localKeys: string[]
  /** The setting that points it at another host, and what unset means in production. */
  apiUrl: { name: string; realService: string }
  /** Each plan's entry under its id in catalog.json, the field that is the plan's id, and its setting. */
  planIds: { prefix: string; catalog: z.ZodObject; id: string }
}
