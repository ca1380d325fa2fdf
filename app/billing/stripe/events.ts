import { z } from 'zod'

import { paymentDescription } from '~/billing/payment-description'
import type { NewPayment, SubscriptionRow } from '~/subscriptions/types'
import { asUserId } from '~/subscriptions/user-id'

/** Schemas name only the fields we read: an additive API change rejects no event. */

const unix = z.int().nullish()
const id = z.union([z.string(), z.looseObject({ id: z.string() })])
const metadata = z.record(z.string(), z.string()).nullish()

export const StripeSubscriptionSchema = z.looseObject({
  id: z.string(),
  object: z.literal('subscription'),
  customer: id,
  status: z.string(),
  cancel_at_period_end: z.boolean().nullish(),
  cancel_at: unix,
  canceled_at: unix,
  trial_start: unix,
  trial_end: unix,
  metadata,
  cancellation_details: z
    .looseObject({
      reason: z.string().nullish(),
      feedback: z.string().nullish(),
      comment: z.string().nullish(),
    })
    .nullish(),
  items: z.object({
    data: z.array(
      z.looseObject({
        current_period_start: unix,
        current_period_end: unix,
        price: z.looseObject({
          id: z.string(),
          nickname: z.string().nullish(),
          recurring: z.looseObject({ interval: z.string() }).nullish(),
        }),
      }),
    ),
  }),
})
export type StripeSubscription = z.infer<typeof StripeSubscriptionSchema>

export const StripeInvoiceSchema = z.looseObject({
  id: z.string(),
  object: z.literal('invoice'),
  customer: id.nullish(),
  amount_paid: z.int(),
  amount_due: z.int().optional(),
  attempt_count: z.int().optional(),
  next_payment_attempt: unix,
  currency: z.string(),
  status: z.string().nullish(),
  hosted_invoice_url: z.string().nullish(),
  customer_email: z.string().nullish(),
  created: z.int(),
  parent: z
    .looseObject({
      subscription_details: z.looseObject({ subscription: id.nullish(), metadata }).nullish(),
    })
    .nullish(),
  lines: z
    .looseObject({
      data: z.array(
        z.looseObject({
          pricing: z
            .looseObject({ price_details: z.looseObject({ price: id.nullish() }).nullish() })
            .nullish(),
          parent: z
            .looseObject({
              subscription_item_details: z
                .looseObject({ subscription: z.string().nullish() })
                .nullish(),
            })
            .nullish(),
        }),
      ),
    })
    .optional(),
})
export type StripeInvoice = z.infer<typeof StripeInvoiceSchema>

const card = z.object({ brand: z.string(), last4: z.string() })
// Expanded to its card; an id names none.
const method = z.looseObject({ card: card.nullish() }).nullish().catch(null)
const intent = z.looseObject({ id: z.string(), payment_method: method })

/** A page of `GET /v1/invoice_payments`: since basil, where an invoice's PaymentIntent (and card) is. */
export const StripeInvoicePaymentsSchema = z.looseObject({
  data: z.array(
    z.looseObject({
      status: z.string(),
      payment: z.looseObject({
        type: z.string(),
        payment_intent: z.union([z.string(), intent]).nullish(),
      }),
    }),
  ),
})

/** A refund's Charge (its refunded total) or a dispute's Dispute (its status). */
export const StripeChargeObjectSchema = z.looseObject({
  object: z.enum(['charge', 'dispute']),
  payment_intent: id.nullish(),
  amount_refunded: z.int().optional(),
  status: z.string(),
})

/** What a refund or dispute changes on the payment row of its PaymentIntent (record_stripe_charge). */
export function chargeChange(object: z.infer<typeof StripeChargeObjectSchema>) {
  const dispute = object.object === 'dispute'
  return {
    provider_charge_id: idOf(object.payment_intent),
    amount_refunded: dispute ? undefined : object.amount_refunded,
    dispute_status: dispute ? object.status : undefined,
  }
}

export const idOf = (value: string | { id: string } | null | undefined) =>
  value == null ? null : typeof value === 'string' ? value : value.id
/** A Stripe time (Unix seconds) as ISO, or null when unset. */
export const iso = (seconds: number | null | undefined) =>
  seconds == null ? null : new Date(seconds * 1000).toISOString()

/** The user a subscription belongs to, from the metadata set at checkout. */
export function subscriptionUserId(subscription: StripeSubscription) {
  return asUserId(subscription.metadata?.user_id)
}

/** `planName` is the caller's, from the plans (the one source of truth). */
export function subscriptionFields(
  subscription: StripeSubscription,
  planName: string,
  options: { deleted?: boolean } = {},
): Partial<SubscriptionRow> {
  const item = subscription.items.data[0]
  const details = subscription.cancellation_details
  return {
    provider: 'stripe',
    stripe_customer_id: idOf(subscription.customer),
    stripe_subscription_id: subscription.id,
    plan_name: planName,
    status: options.deleted ? 'canceled' : subscription.status,
    billing_cycle: item?.price.recurring?.interval ?? null,
    current_period_start: iso(item?.current_period_start),
    current_period_end: iso(item?.current_period_end),
    cancel_at_period_end: subscription.cancel_at_period_end ?? false,
    cancel_at: iso(subscription.cancel_at),
    canceled_at:
      iso(subscription.canceled_at) ?? (options.deleted ? new Date().toISOString() : null),
    trial_start: iso(subscription.trial_start),
    trial_end: iso(subscription.trial_end),
    cancellation_reason: details?.reason ?? null,
    cancellation_feedback: details?.feedback ?? null,
    cancellation_comment: details?.comment ?? null,
    metadata: subscription.metadata ?? {},
  }
}

/** The subscription an invoice belongs to, where API version basil+ puts it. */
export function invoiceSubscriptionId(invoice: StripeInvoice) {
  return (
    idOf(invoice.parent?.subscription_details?.subscription) ||
    invoice.lines?.data
      .map((line) => line.parent?.subscription_item_details?.subscription)
      .find(Boolean) ||
    null
  )
}

/** The price of the invoice's first line (what plan was paid for). */
export function invoiceLinePriceId(invoice: StripeInvoice) {
  return idOf(invoice.lines?.data[0]?.pricing?.price_details?.price)
}

/** The PaymentIntent that paid an invoice and its card (when expanded); null when none did. */
export function paidPaymentIntent(payments: z.infer<typeof StripeInvoicePaymentsSchema>) {
  const paid = payments.data.filter((entry) => entry.status === 'paid')
  const intent = paid.map((entry) => entry.payment.payment_intent).find(Boolean)
  const card = (typeof intent === 'object' && intent?.payment_method?.card) || null
  return intent ? { id: idOf(intent)!, card } : null
}

/** The payment_history row of a paid invoice (user_id null when the owner is unknown). */
export function invoicePayment(
  invoice: StripeInvoice,
  userId: string | null,
  planName: string | null,
  paymentIntentId: string | null,
): NewPayment {
  return {
    user_id: userId,
    provider: 'stripe',
    provider_payment_id: invoice.id,
    provider_charge_id: paymentIntentId,
    amount: invoice.amount_paid,
    currency: invoice.currency.toLowerCase(),
    status: invoice.status ?? 'paid',
    description: paymentDescription(planName),
    invoice_url: invoice.hosted_invoice_url ?? null,
    created_at: new Date(invoice.created * 1000).toISOString(),
  }
}
