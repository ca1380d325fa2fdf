/** Fixture events on demand, like `stripe trigger <event>`. */
import { z } from 'zod'

import { chargeOf, closeDispute, openDispute, refundCharge } from './charges'
import { completeCheckout, createCheckoutSession } from './checkout'
import { randomId } from './http'
import type { StripeEvent } from './store'
import {
  advanceSubscription,
  type BillingContext,
  cancelSubscription,
  createCustomer,
  createSubscription,
  type SubscriptionChange,
  updateSubscription,
} from './subscriptions'

export const triggerOptionsSchema = z.object({
  /** Act on this subscription instead of creating a fixture one. */
  subscription: z.string().optional(),
  /** Use this customer for fixture subscriptions and checkouts. */
  customer: z.string().optional(),
  email: z.string().optional(),
  price: z.string().optional(),
  /** Metadata for fixture subscriptions (and the checkout session). */
  metadata: z.record(z.string(), z.string()).optional(),
  /** For customer.subscription.updated: what to change (default: a metadata stamp). */
  cancelAtPeriodEnd: z.boolean().optional(),
  switchToPrice: z.string().optional(),
  feedback: z.string().optional(),
  /** For charge.*: the payment (default: the first invoice's of a fixture subscription). */
  paymentIntent: z.string().optional(),
  charge: z.string().optional(),
  /** For charge.refunded: how much (default: what is left). */
  amount: z.number().int().optional(),
  /** For charge.dispute.closed: the dispute and how it ended (default `lost`). */
  dispute: z.string().optional(),
  disputeStatus: z.enum(['won', 'lost', 'warning_closed', 'prevented']).optional(),
})

export type TriggerOptions = z.input<typeof triggerOptionsSchema>

export const TRIGGER_TYPES = [
  'customer.created',
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.created',
  'invoice.finalized',
  'invoice.paid',
  'invoice.payment_succeeded',
  'invoice.payment_failed',
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
] as const

/** Runs the flow that produces `type` and returns that event (the first of its type). */
export function trigger(
  ctx: BillingContext,
  type: string,
  rawOptions: TriggerOptions = {},
): StripeEvent {
  const options = triggerOptionsSchema.parse(rawOptions)
  if (!(TRIGGER_TYPES as readonly string[]).includes(type)) {
    throw new Error(`Unsupported trigger '${type}'. Supported: ${TRIGGER_TYPES.join(', ')}`)
  }
  const start = ctx.store.events.size
  run(ctx, type, options)
  const emitted = [...ctx.store.events.values()].slice(start)
  const event = emitted.find((candidate) => candidate.type === type)
  if (!event) throw new Error(`Trigger '${type}' produced no such event`)
  return event
}

function run(ctx: BillingContext, type: string, options: z.output<typeof triggerOptionsSchema>) {
  const priceId = options.price ?? ctx.store.catalog.plans[0].stripe.priceId
  const email = options.email ?? `${randomId('trigger', 8).toLowerCase()}@example.com`
  const customerId = () => options.customer ?? createCustomer(ctx, { email, name: null }).id
  const fixture = () =>
    options.subscription
      ? ctx.store.subscription(options.subscription, 'subscription')
      : createSubscription(ctx, {
          customer: customerId(),
          price: ctx.store.price(priceId, 'price'),
          quantity: 1,
          metadata: options.metadata ?? {},
          automaticTax: false,
          now: ctx.store.now(),
        })
  const charge = () => {
    if (options.charge || options.paymentIntent) return chargeOf(ctx, options)
    const invoice = ctx.store.invoice(String(fixture().latest_invoice))
    const [payment] = ctx.store.paymentsOf(invoice.id)
    return chargeOf(ctx, { paymentIntent: payment?.payment.payment_intent })
  }
  if (type === 'charge.refunded') {
    refundCharge(ctx, charge(), options.amount)
  } else if (type === 'charge.dispute.created') {
    openDispute(ctx, charge())
  } else if (type === 'charge.dispute.closed') {
    const dispute = options.dispute ?? openDispute(ctx, charge()).id
    closeDispute(ctx, dispute, options.disputeStatus ?? 'lost')
  } else if (type === 'customer.created') {
    createCustomer(ctx, { email, name: null })
  } else if (type === 'checkout.session.completed') {
    const session = createCheckoutSession(ctx, {
      mode: 'subscription',
      line_items: [{ price: priceId, quantity: '1' }],
      ...(options.customer ? { customer: options.customer } : { customer_email: email }),
      metadata: options.metadata ?? {},
      subscription_data: { metadata: options.metadata ?? {} },
      success_url: 'http://localhost/success?session_id={CHECKOUT_SESSION_ID}',
    })
    completeCheckout(ctx, session.id, { number: '4242424242424242' })
  } else if (type === 'customer.subscription.updated') {
    const change: SubscriptionChange = {}
    if (options.cancelAtPeriodEnd !== undefined)
      change.cancelAtPeriodEnd = options.cancelAtPeriodEnd
    if (options.switchToPrice) change.price = { priceId: options.switchToPrice }
    if (options.feedback) change.feedback = options.feedback
    if (Object.keys(change).length === 0)
      change.metadata = { emulator_trigger: randomId('trg', 10) }
    updateSubscription(ctx, fixture(), change)
  } else if (type === 'customer.subscription.deleted') {
    cancelSubscription(ctx, fixture(), { feedback: options.feedback })
  } else if (type === 'invoice.payment_failed') {
    advanceSubscription(ctx, fixture(), true)
  } else if (type.startsWith('invoice.') && options.subscription) {
    advanceSubscription(ctx, fixture())
  } else {
    fixture()
  }
}
