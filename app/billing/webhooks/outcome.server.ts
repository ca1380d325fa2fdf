import type { z } from 'zod'

import {
  isDatabaseUnavailable,
  RETRY_AFTER_SECONDS,
} from '~/lib/database/database-availability.server'
import { readBodyWithLimit } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import { webhookOutcomes } from '~/lib/server/metrics.server'
import { wakeMailDelivery } from '~/notifications/delivery.server'

import { recentEvents } from './recent-events.server'

/** A verified event whose payload lacks fields a handled type needs: a retry cannot fix it. */
class InvalidPayloadError extends Error {}

export function parsePayload<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value)
  if (!result.success) throw new InvalidPayloadError(result.error.message)
  return result.data
}

function webhookJson(body: unknown, status: number, headers: Record<string, string> = {}) {
  return Response.json(body, { status, headers: { 'Cache-Control': 'no-store', ...headers } })
}

export const badSignature = () =>
  webhookJson({ error: 'Webhook signature verification failed' }, 400)
export const received = () => webhookJson({ received: true }, 200)
export const invalidPayload = () => webhookJson({ error: 'Invalid webhook payload' }, 400)

/** Provider events are well under 1 MB; anything larger is refused before verification. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024

/** The raw body, or the answer when it is too large (413) or cannot be read (400). */
export async function readWebhookBody(request: Request): Promise<Uint8Array | Response> {
  const body = await readBodyWithLimit(request, WEBHOOK_BODY_LIMIT).catch(() => undefined)
  if (body === null) return webhookJson({ error: 'Payload too large' }, 413)
  return body ?? badSignature()
}

/** Applies a verified event and answers as docs/webhooks.md says (step 5), for every provider. */
export async function answerWebhook(
  provider: string,
  event: { id: string; type: string },
  apply: () => Promise<string>,
): Promise<Response> {
  const key = `${provider}:${event.id}`
  const log = logger.child({ id: event.id, type: event.type })
  try {
    const outcome = recentEvents.has(key) ? 'duplicate' : await apply()
    recentEvents.add(key)
    // A user paying twice, or for a deleted account: for the operator (docs/operations.md).
    const refund = outcome === 'duplicate_subscription' || outcome === 'deleted_account'
    log[refund ? 'error' : 'info']({ outcome }, `${provider} webhook`)
    webhookOutcomes.inc({ provider, outcome })
    // A mail may have been queued with the event: delivered in the background, never awaited.
    if (outcome === 'applied' || outcome === 'notified') wakeMailDelivery()
    return received()
  } catch (error) {
    if (error instanceof InvalidPayloadError) {
      log.error(
        { issues: error.message },
        `${provider} webhook: payload does not match the expected shape`,
      )
      return invalidPayload()
    }
    if (isDatabaseUnavailable(error)) {
      log.error({ err: error }, `${provider} webhook: database unavailable`)
      return webhookJson({ error: 'Service temporarily unavailable' }, 503, {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      })
    }
    log.error({ err: error }, `${provider} webhook: processing failed`)
    return webhookJson({ error: 'Error processing webhook' }, 500)
  }
}
