import type { z } from 'zod'

import {
  clientKey,
  countRefusal,
  getRateLimitStore,
  type RateLimitResult,
  type RateLimitRule,
  SHARED_CLIENT_KEY,
} from '~/lib/server/rate-limit.server'

import { deliverContactMessage } from './delivery.server'
import { contactSchema } from './schema'

/** Per identified client (see `clientKey`): enough for a person, too few for a flood. */
const CONTACT_RATE_LIMIT: RateLimitRule = { limit: 5, windowMs: 10 * 60_000 }

/** For all clients that cannot be told apart (no trusted proxy configured), together. */
const CONTACT_SHARED_RATE_LIMIT: RateLimitRule = { limit: 100, windowMs: 10 * 60_000 }

/** The longest valid submission, 5,654 characters as 12-byte escaped pairs, is under 70 KB. */
export const CONTACT_MAX_BODY_BYTES = 128 * 1024

export async function hitContactRateLimit(request: Request): Promise<RateLimitResult> {
  const key = clientKey(request)
  const rule = key === SHARED_CLIENT_KEY ? CONTACT_SHARED_RATE_LIMIT : CONTACT_RATE_LIMIT
  return getRateLimitStore().hit(`contact:${key}`, rule).then(countRefusal('contact'))
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
