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
import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import {
  applySubscriptionEvent,
  type LedgerEvent,
  recordEvent,
  recordPaymentEvent,
} from '~/subscriptions/store.server'

/** The invoice call, not needed to record a payment, stays well inside Polar's 10 s timeout. */
const lookupTimeoutSeconds = () => Math.min(3, getEnv().POLAR_TIMEOUT_SECONDS)

/**
 * POST /api/webhooks/polar (and the spec's /api/webhooks/providerb); its answers are in
 * docs/webhooks.md. Never 410: Standard Webhooks senders disable endpoints that answer 410.
 */
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
  const event: LedgerEvent = {
    provider: 'polar',
    id,
    type: envelope.data.type,
    occurredAt: normaliseTimestamp(
      envelope.data.timestamp,
      request.headers.get('webhook-timestamp') ?? undefined,
    ),
  }
  return answerWebhook('polar', event, () => applyPolarEvent(event, envelope.data.data))
}

function normaliseTimestamp(timestamp: string | undefined, header: string | undefined) {
  const parsed = timestamp ? new Date(timestamp) : new Date(Number(header) * 1000)
  return Number.isNaN(parsed.getTime()) ? new Date().toISOString() : parsed.toISOString()
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
    case 'order.created': {
      const order = parsePayload(PolarOrderSchema, data)
      const fresh = await recordEvent(event)
      if (fresh)
        logger.info(
          { order: order.id, subscription: order.subscription_id },
          'polar: order created',
        )
      return fresh ? 'logged' : 'duplicate'
    }
    // An order's user is found by the ledger call itself, in the same round trip: the user
    // holding its subscription (spec), else the user it names (record_payment_event).
    case 'order.paid': {
      const order = parsePayload(PolarOrderSchema, data)
      const userId = linkedUserId(event, order)
      if (!userId && !order.subscription_id)
        return (await recordEvent(event)) ? 'no_user' : 'duplicate'
      // The invoice URL is not needed to record the payment: when Polar cannot give it, the
      // payment is recorded without one and the URL is filled in later.
      const invoiceUrl = await fetchOrderInvoiceUrl(order.id, {
        timeoutSeconds: lookupTimeoutSeconds(),
      }).catch((error: unknown) => invoiceDeferred(event, order.id, error))
      return recordPaymentEvent(event, polarOrderPayment(order, userId, invoiceUrl))
    }
    case 'order.refunded': {
      const order = parsePayload(PolarOrderSchema, data)
      const payment = polarRefundPayment(order, linkedUserId(event, order), event.occurredAt)
      return recordPaymentEvent(event, payment)
    }
    case 'order.updated': {
      const order = parsePayload(PolarOrderSchema, data)
      if (!order.is_invoice_generated) return (await recordEvent(event)) ? 'logged' : 'duplicate'
      // Fill first, record after: if the database fails, nothing is in the ledger and
      // Polar's retry fills it. A Polar failure is logged and answered 200 (the billing page
      // fills the URL later). Filling is idempotent, so a repeat does no harm.
      const outcome = await fillInvoiceUrl(event, order.id)
      return (await recordEvent(event)) ? outcome : 'duplicate'
    }
    default:
      return (await recordEvent(event)) ? 'unhandled' : 'duplicate'
  }
}

/**
 * A failed invoice call: the event is recorded without the URL and answered 200, as a 500
 * would have Polar retry (and disable the endpoint) until it can make the invoice.
 */
function invoiceDeferred(event: LedgerEvent, orderId: string, error: unknown) {
  logger.warn(
    { id: event.id, type: event.type, order: orderId, err: error, status: httpStatusOf(error) },
    'polar: invoice URL not available, recorded without it',
  )
  return null
}

/** On order.updated with the invoice generated: reads its URL into the payment recorded without. */
async function fillInvoiceUrl(event: LedgerEvent, orderId: string) {
  let url: string | null
  try {
    url = await fetchOrderInvoiceUrl(orderId, {
      generate: false,
      timeoutSeconds: lookupTimeoutSeconds(),
    })
  } catch (error) {
    invoiceDeferred(event, orderId, error)
    return 'invoice_deferred'
  }
  if (!url) return 'invoice_not_ready'
  const { error } = await database().rpc('fill_payment_details', {
    p_fields: { invoice_url: url },
    p_polar_order_id: orderId,
  })
  if (error) throw databaseError('invoice url update', error)
  return 'invoice_filled'
}
