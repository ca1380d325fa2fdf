import { z } from 'zod'

import { ValidationFailed } from './http'

/** Polar metadata: ≤50 pairs, keys 1–40 chars, values string (1–500) | number | boolean, no nesting. */
const metadata = z
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

// Lenient like email-validator without deliverability checks (test domains such as a@b.c pass).
const email = z.string().regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'value is not a valid email address')

export const checkoutCreateSchema = z.object({
  products: z.array(z.uuid()).min(1),
  metadata: metadata.optional(),
  customer_email: email.nullish(),
  customer_id: z.uuid().nullish(),
  external_customer_id: z.string().nullish(),
  success_url: z.url().nullish(),
})

export const customerSessionCreateSchema = z.union([
  z.object({ customer_id: z.uuid(), return_url: z.url().nullish() }),
  z.object({
    external_customer_id: z.string().min(1),
    return_url: z.url().nullish(),
  }),
])

export const customerCreateSchema = z.object({
  email,
  name: z.string().nullish(),
  external_id: z.string().min(1).nullish(),
  metadata: metadata.optional(),
})

export const customerUpdateSchema = customerCreateSchema.partial().extend({
  email: email.nullish(),
})

/** The `SubscriptionUpdate` variants the product sends (only the default `prorate` modelled). */
export const subscriptionUpdateSchema = z.union([
  z.strictObject({
    product_id: z.uuid(),
    proration_behavior: z.literal('prorate').nullish(),
  }),
  z.object({ cancel_at_period_end: z.boolean() }),
])

/** Parses like FastAPI: failures become a 422 `{detail: [{type, loc: ['body', …], msg, input}]}`. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body, { reportInput: true })
  if (result.success) return result.data
  throw new ValidationFailed(
    result.error.issues.map((issue) => {
      const missing = issue.code === 'invalid_type' && issue.input === undefined
      return {
        type: missing ? 'missing' : issue.code,
        loc: [
          'body',
          ...issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
        ],
        msg: missing ? 'Field required' : issue.message,
        input: issue.input,
      }
    }),
  )
}

/** Path ids are UUIDs in Polar; anything else is a 422 before any lookup. */
export function assertUuid(value: string) {
  if (/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(value)) return
  throw new ValidationFailed([
    {
      type: 'uuid_parsing',
      loc: ['path', 'id'],
      msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-]',
      input: value,
    },
  ])
}
