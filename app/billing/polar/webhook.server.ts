import { webhooks } from '@polar-sh/sdk/2026-10'

import {
  PolarEnvelopeSchema,
  polarOrderPayment,
  PolarOrderSchema,
  polarRefundPayment,
  polarSubscriptionFields,
  PolarSubscriptionSchema,
  polarUserLink,
} from '~/billing/polar/events'
import { fetchOrderInvoiceUrl } from '~/billing/polar/invoice.server'
import {
  answerWebhook,
  badSignature,
  invalidPayload,
  parsePayload,
  readWebhookBody,
  received,
} from '~/billing/webhooks/outcome.server'
import { getEnv } from '~/env.server'
import { rpc } from '~/lib/database/rpc.server'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import {
  applySubscriptionEvent,
  type LedgerEvent,
  recordEvent,
  recordPaymentEvent,
} from '~/subscriptions/store.server'

/** POST /api/webhooks/polar (and /api/webhooks/providerb); answers: docs/webhooks.md. */
export async function handlePolarWebhook(request: Request): Promise<Response> {
  const body = await readWebhookBody(request)
  if (body instanceof Response) return body
  const id = request.headers.get('webhook-id') ?? ''
  const { POLAR_WEBHOOK_SECRET: current, POLAR_WEBHOOK_SECRET_PREVIOUS: previous } = getEnv()
  const verify = (secret: string) =>
    webhooks.validateEvent(body, Object.fromEntries(request.headers), secret)
  let payload: unknown
  try {
    // Either secret's signature: the one before a regeneration stays accepted while it is set.
    payload = await verify(current).catch((error: unknown) => {
      if (!previous || !(error instanceof webhooks.PolarWebhookVerificationError)) throw error
      return verify(previous)
    })
  } catch (error) {
    if (error instanceof webhooks.PolarWebhookVerificationError) {
      logger.warn({ reason: error.message }, 'polar webhook: signature verification failed')
      return badSignature()
    }
    if (error instanceof webhooks.PolarWebhookUnknownTypeError) {
      logger.info({ id }, 'polar webhook: unknown event type')
      return received()
    }
    logger.error({ id }, 'polar webhook: signed payload is not valid JSON')
    return invalidPayload()
  }

  const envelope = PolarEnvelopeSchema.safeParse(payload)
  if (!envelope.success) return invalidPayload()
  const { type, timestamp, data } = envelope.data
  const header = request.headers.get('webhook-timestamp') ?? undefined
  const at = timestamp ? new Date(timestamp) : new Date(Number(header) * 1000)
  const occurredAt = Number.isNaN(at.getTime()) ? new Date() : at
  const event = { provider: 'polar', id, type, occurredAt: occurredAt.toISOString() }
  return answerWebhook('polar', event, () => applyPolarEvent(event, data))
}

/** The user of a subscription or order, by `polarUserLink`; a refused link is logged. */
function linkedUserId(event: LedgerEvent, object: Parameters<typeof polarUserLink>[0]) {
  const link = polarUserLink(object)
  if (link.refused)
    logger.warn(
      { id: event.id, type: event.type, customer: object.customer?.id },
      'polar webhook: customer bound to another user, event changes nothing',
    )
  return link.userId
}

/** Applies one verified Polar event; returns what happened (for the log). */
export async function applyPolarEvent(event: LedgerEvent, data: unknown): Promise<string> {
  if (event.type.startsWith('subscription.')) {
    const subscription = parsePayload(PolarSubscriptionSchema, data)
    const fields = polarSubscriptionFields(event.type, subscription)
    if (!fields) return (await recordEvent(event)) ? 'unhandled' : 'duplicate'
    return applySubscriptionEvent(event, linkedUserId(event, subscription), fields)
  }
  switch (event.type) {
    // A renewal being charged reads Pending, then Paid, or Failed once the subscription falls past due.
    case 'order.created': {
      const order = parsePayload(PolarOrderSchema, data)
      if (order.status !== 'pending') return (await recordEvent(event)) ? 'logged' : 'duplicate'
      const payment = polarOrderPayment(order, linkedUserId(event, order))
      return recordPaymentEvent(event, { ...payment, status: 'pending' })
    }
    // Only a payment the ledger recorded is worth an invoice: an order nobody holds makes no Polar call.
    case 'order.paid': {
      const order = parsePayload(PolarOrderSchema, data)
      const payment = polarOrderPayment(order, linkedUserId(event, order))
      const outcome = await recordPaymentEvent(event, payment)
      if (outcome === 'applied') await fillInvoiceUrl(event, order.id, true)
      return outcome
    }
    case 'order.refunded': {
      const order = parsePayload(PolarOrderSchema, data)
      const payment = polarRefundPayment(order, linkedUserId(event, order), event.occurredAt)
      return recordPaymentEvent(event, payment)
    }
    case 'order.updated': {
      const order = parsePayload(PolarOrderSchema, data)
      if (!order.is_invoice_generated) return (await recordEvent(event)) ? 'logged' : 'duplicate'
      // Fill first, record after: if the database fails, Polar's retry fills it.
      const outcome = await fillInvoiceUrl(event, order.id)
      return (await recordEvent(event)) ? outcome : 'duplicate'
    }
    default:
      return (await recordEvent(event)) ? 'unhandled' : 'duplicate'
  }
}

/**
 * Fills in a paid order's invoice URL (generating it on order.paid); a failed Polar call is
 * logged, a database failure throws (docs/webhooks.md, "Lookups that can wait").
 */
async function fillInvoiceUrl(event: LedgerEvent, orderId: string, generate = false) {
  const url = await fetchOrderInvoiceUrl(orderId, {
    generate,
    // Well inside Polar's delivery timeout (10 s).
    timeoutSeconds: Math.min(3, getEnv().POLAR_TIMEOUT_SECONDS),
  }).catch((error: unknown) => {
    logger.warn(
      { id: event.id, type: event.type, order: orderId, err: error, status: httpStatusOf(error) },
      'polar: invoice URL not available, recorded without it',
    )
    return undefined
  })
  if (url === undefined) return 'invoice_deferred'
  if (!url) return 'invoice_not_ready'
  const order = { p_provider: 'polar', p_provider_payment_id: orderId }
  await rpc('fill_payment_details', { p_fields: { invoice_url: url }, ...order })
  return 'invoice_filled'
}
