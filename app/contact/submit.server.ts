import type { z } from 'zod'

import { type ClientRateLimit, hitClientRateLimit } from '~/lib/server/rate-limit.server'

import { deliverContactMessage } from './delivery.server'
import { contactSchema } from './schema'

/**
 * Per identified client (see `clientKey`): enough for a person, too few for a flood; and for
 * all clients that cannot be told apart (no trusted proxy configured), together.
 */
const CONTACT_RATE_LIMITS: ClientRateLimit = {
  client: { limit: 5, windowMs: 10 * 60_000 },
  shared: { limit: 100, windowMs: 10 * 60_000 },
}

/** The longest valid submission, 5,654 characters as 12-byte escaped pairs, is under 70 KB. */
export const CONTACT_MAX_BODY_BYTES = 128 * 1024

export const hitContactRateLimit = (request: Request) =>
  hitClientRateLimit(request, 'contact', CONTACT_RATE_LIMITS)

/** Delivers one API submission; an API caller's `website` field is dropped, not taken for a bot. */
export async function submitContact(
  input: unknown,
): Promise<{ kind: 'delivered' } | { kind: 'invalid'; issues: z.core.$ZodIssue[] }> {
  const result = contactSchema.safeParse(input)
  if (!result.success) return { kind: 'invalid', issues: result.error.issues }
  await deliverContactMessage(result.data)
  return { kind: 'delivered' }
}
