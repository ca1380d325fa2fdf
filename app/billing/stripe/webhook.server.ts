import Stripe from 'stripe'
import { z } from 'zod'

import { planById } from '~/billing/plans.server'
import { getStripe } from '~/billing/stripe/client.server'
import {
  chargeChange,
  idOf,
  invoiceLinePriceId,
  invoicePayment,
  invoiceSubscriptionId,
  iso,
  StripeChargeObjectSchema,
  type StripeInvoice,
  StripeInvoiceSchema,
  type StripeSubscription,
  StripeSubscriptionSchema,
  subscriptionFields,
  subscriptionUserId,
} from '~/billing/stripe/events'
import { fetchInvoicePaymentIntent } from '~/billing/stripe/invoice.server'
import {
  answerWebhook,
  badSignature,
  invalidPayload,
  parsePayload,
  readWebhookBody,
  received,
} from '~/billing/webhooks/outcome.server'
import { getEnv } from '~/env.server'
import { logger } from '~/lib/server/logger.server'
import {
  applySubscriptionEvent,
  type LedgerEvent,
  recordPaymentEvent,
  recordPaymentFailure,
} from '~/subscriptions/store.server'
import { asUserId } from '~/subscriptions/user-id'

const utf8 = new TextDecoder()
const THIN_EVENT =
  'stripe webhook: a thin event, not applied: set the event destination’s payload style to Snapshot (Workbench > Webhooks)'

/** POST /api/webhooks/stripe (and /api/webhooks/providera); answers: docs/webhooks.md. */
export async function handleStripeWebhook(request: Request): Promise<Response> {
  const signature =
    request.headers.get('stripe-signature') ?? request.headers.get('providera-signature')
  const body = await readWebhookBody(request)
  if (body instanceof Response) return body
  if (!signature) return badSignature()

  // Decoded once: given bytes, the SDK would decode them twice (signature check, then parse).
  const text = utf8.decode(body)
  const { STRIPE_WEBHOOK_SECRET: current, STRIPE_WEBHOOK_SECRET_PREVIOUS: previous } = getEnv()
  // The SDK's 300 s tolerance; either secret's signature during a roll.
  const verify = (secret: string) => getStripe().webhooks.constructEvent(text, signature, secret)
  let event: Stripe.Event
  try {
    try {
      event = verify(current)
    } catch (error) {
      if (!previous || !(error instanceof Stripe.errors.StripeSignatureVerificationError))
        throw error
      event = verify(previous)
    }
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      logger.warn({ reason: error.message }, 'stripe webhook: signature verification failed')
      return badSignature()
    }
    // Signed, so a retry cannot fix it: not JSON, or a thin event.
    const thin = /"object":\s*"v2\.core\.event"/.test(text)
    logger.error(
      { err: error },
      thin ? THIN_EVENT : 'stripe webhook: signed payload is not valid JSON',
    )
    return thin ? received() : invalidPayload()
  }

  if (!EventEnvelopeSchema.safeParse(event).success) {
    // Signed, valid JSON, but not an event (an array, null, no id/type/created/data).
    logger.error('stripe webhook: signed payload is not an event')
    return invalidPayload()
  }

  return answerWebhook('stripe', event, () => applyStripeEvent(event))
}

/** The envelope fields every event must have before any of them is read. */
const EventEnvelopeSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  created: z.number().refine(Number.isInteger),
  data: z.custom<object>((data) => typeof data === 'object' && data !== null),
})

const ledger = (event: Stripe.Event): LedgerEvent => ({
  provider: 'stripe',
  id: event.id,
  type: event.type,
  occurredAt: new Date(event.created * 1000).toISOString(),
})

/** The plan name of a subscription: the plans' name for its price, else Stripe's nickname. */
export function stripePlanName(subscription: StripeSubscription) {
  const price = subscription.items.data[0]?.price
  return planById('stripe', price?.id)?.name ?? price?.nickname ?? 'Unknown Plan'
}

/** Applies one verified Stripe event; returns what happened (for the log). */
export async function applyStripeEvent(event: Stripe.Event): Promise<string> {
  switch (event.type) {
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const subscription = parsePayload(StripeSubscriptionSchema, event.data.object)
      // No user in its metadata: the ledger call finds the one holding this subscription.
      const userId = subscriptionUserId(subscription)
      const fields = subscriptionFields(subscription, stripePlanName(subscription), {
        deleted: event.type === 'customer.subscription.deleted',
      })
      return applySubscriptionEvent(ledger(event), userId, fields)
    }
    // Both for a charge Stripe made (one row: the ledger upserts by invoice); only
    // invoice.paid for an invoice paid out of band (bank transfer, marked paid).
    case 'invoice.paid':
    case 'invoice.payment_succeeded': {
      const invoice = parsePayload(StripeInvoiceSchema, event.data.object)
      const { userId, planName: name, customerId } = await invoiceOwner(invoice)
      // Not needed to record the payment: a short bound, no retries (Stripe waits up to 20 s).
      const intent =
        invoice.amount_paid > 0
          ? await fetchInvoicePaymentIntent(invoice.id, {
              timeoutMs: Math.min(3_000, getEnv().STRIPE_TIMEOUT_MS),
            }).catch((error: unknown) => {
              logger.warn(
                { id: event.id, invoice: invoice.id, err: error },
                'stripe: invoice payments not available, payment recorded without them',
              )
              return null
            })
          : null
      const payment = invoicePayment(invoice, userId, name, intent?.id ?? null)
      const card = intent?.card
      return recordPaymentEvent(ledger(event), { ...payment, stripe_customer_id: customerId, card })
    }
    case 'invoice.payment_failed': {
      const invoice = parsePayload(StripeInvoiceSchema, event.data.object)
      // The owner first (this may call Stripe): if Stripe fails, nothing is in the ledger
      // yet, so the answer is 500 and the retry still queues the mail.
      const owner = await invoiceOwner(invoice)
      logger.warn(
        { invoice: invoice.id, customer: invoice.customer },
        'stripe: invoice payment failed',
      )
      return recordPaymentFailure(
        ledger(event),
        owner.userId,
        {
          invoice_id: invoice.id,
          attempt: invoice.attempt_count ?? null,
          amount: invoice.amount_due ?? 0,
          currency: invoice.currency,
          invoice_url: invoice.hosted_invoice_url ?? null,
          retry_at: iso(invoice.next_payment_attempt || null),
        },
        {
          ...invoicePayment(invoice, owner.userId, owner.planName, null),
          amount: invoice.amount_due ?? invoice.amount_paid,
          status: 'failed',
          stripe_customer_id: owner.customerId,
        },
      )
    }
    case 'charge.refunded':
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const change = chargeChange(parsePayload(StripeChargeObjectSchema, event.data.object))
      // The operator answers a dispute in Stripe's dashboard, before its deadline.
      if (change.dispute_status)
        logger.error({ id: event.id, type: event.type, ...change }, 'stripe: payment disputed')
      return recordPaymentEvent(ledger(event), change)
    }
    default: {
      logger.info({ id: event.id, type: event.type }, 'stripe webhook: unhandled event type')
      return 'unhandled'
    }
  }
}

/** The user and plan of an invoice (docs/webhooks.md, "Users"). */
async function invoiceOwner(invoice: StripeInvoice) {
  let userId = asUserId(invoice.parent?.subscription_details?.metadata?.user_id)
  let name = planById('stripe', invoiceLinePriceId(invoice))?.name ?? null
  const customerId = idOf(invoice.customer)
  let subscriptionId = invoiceSubscriptionId(invoice)
  if (!userId || !subscriptionId) {
    if (!subscriptionId && customerId) {
      const list = await getStripe().subscriptions.list({
        customer: customerId,
        status: 'all',
        limit: 1,
      })
      subscriptionId = list.data[0]?.id ?? null
    }
    if (subscriptionId) {
      const subscription = parsePayload(
        StripeSubscriptionSchema,
        await getStripe().subscriptions.retrieve(subscriptionId),
      )
      userId ??= subscriptionUserId(subscription)
      name ??= stripePlanName(subscription)
    }
  }
  // Still none: the ledger call finds the user holding the customer (`customerId`).
  return { userId, planName: name, customerId }
}
