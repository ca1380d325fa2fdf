import { z } from 'zod'

import { ValidationFailed } from './http'

/** Polar metadata: ≤50 pairs, keys 1–40 chars, values string (1–500) | number | boolean, no nesting. */
export const metadata = z
  .record(
    z.string().min(1).max(40),
    z.union([z.string().min(1).max(500), z.number(), z.boolean()], {
      error: 'Metadata values must be a string (1 to 500 characters), a number or a boolean',
    }),
  )
  .refine(
    (value) => Object.keys(value).length <= 50,
    'Metadata can hold at most 50 key-value pairs',
  )

const optionalText = z.string().nullish()

export const checkoutCreateSchema = z.object({
  products: z.array(z.uuid()).min(1),
  metadata: metadata.optional(),
  customer_metadata: metadata.optional(),
  // Lenient like email-validator without deliverability checks (test domains such as a@b.c pass).
  customer_email: z
    .string()
    .regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'value is not a valid email address')
    .nullish(),
  customer_name: optionalText,
  customer_id: z.uuid().nullish(),
  external_customer_id: optionalText,
  success_url: z.url().nullish(),
  return_url: z.url().nullish(),
})

export const customerSessionCreateSchema = z.union([
  z.object({ customer_id: z.uuid(), return_url: z.url().nullish() }),
  z.object({ external_customer_id: z.string().min(1), return_url: z.url().nullish() }),
])

const cancellation = {
  customer_cancellation_reason: z
    .enum([
      'customer_service',
      'low_quality',
      'missing_features',
      'switched_service',
      'too_complex',
      'too_expensive',
      'unused',
      'other',
    ])
    .nullish(),
  customer_cancellation_comment: optionalText,
}

/**
 * The `SubscriptionUpdate` variants the emulator implements: a product change
 * (`SubscriptionUpdateBase`, extra fields forbidden), cancel/uncancel and revoke.
 */
export const subscriptionUpdateSchema = z.union([
  z.strictObject({
    product_id: z.uuid(),
    proration_behavior: z.enum(['invoice', 'prorate', 'next_period', 'reset']).nullish(),
    metadata: metadata.optional(),
  }),
  z.object({ cancel_at_period_end: z.boolean(), ...cancellation }),
  z.object({ revoke: z.literal(true), ...cancellation }),
])

/** Parses like FastAPI: failures become a 422 `{detail: [{type, loc: ['body', …], msg, input}]}`. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body, { reportInput: true })
  if (result.success) return result.data
  throw new ValidationFailed(
    result.error.issues.map((issue) => ({
      type: issue.code === 'invalid_type' && issue.input === undefined ? 'missing' : issue.code,
      loc: ['body', ...issue.path.map((part) => (typeof part === 'number' ? part : String(part)))],
      msg:
        issue.code === 'invalid_type' && issue.input === undefined
          ? 'Field required'
          : issue.message,
      input: issue.input,
    })),
  )
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Path ids are UUIDs in Polar; anything else is a 422 before any lookup. */
export function assertUuid(value: string, name = 'id') {
  if (UUID.test(value)) return
  throw new ValidationFailed([
    {
      type: 'uuid_parsing',
      loc: ['path', name],
      msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-]',
      input: value,
    },
  ])
}
