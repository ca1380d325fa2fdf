import type { z } from 'zod'

import {
  hitClientRateLimit,
  type RateLimitResult,
  type RateLimitRule,
} from '~/lib/server/rate-limit.server'

import { deliverContactMessage } from './delivery.server'
import { contactSchema } from './schema'

/** Per identified client (see `clientKey`): enough for a person, too few for a flood. */
const CONTACT_RATE_LIMIT: RateLimitRule = { limit: 5, windowMs: 10 * 60_000 }

/** For all clients that cannot be told apart (no trusted proxy configured), together. */
const CONTACT_SHARED_RATE_LIMIT: RateLimitRule = { limit: 100, windowMs: 10 * 60_000 }

/** The longest valid submission, 5,654 characters as 12-byte escaped pairs, is under 70 KB. */
export const CONTACT_MAX_BODY_BYTES = 128 * 1024

export function hitContactRateLimit(request: Request): Promise<RateLimitResult> {
  return hitClientRateLimit(request, 'contact', {
    client: CONTACT_RATE_LIMIT,
    shared: CONTACT_SHARED_RATE_LIMIT,
  })
}

/** Delivers one API submission; an API caller's `website` field is dropped, not taken for a bot. */
export async function submitContact(
  input: unknown,
): Promise<{ kind: 'delivered' } | { kind: 'invalid'; issues: z.core.$ZodIssue[] }> {
  const result = contactSchema.safeParse(input)
  if (!result.success) return { kind: 'invalid', issues: result.error.issues }
  await deliverContactMessage(result.data)
  return { kind: 'delivered' }
}
