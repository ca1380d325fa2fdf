/** Fixture events on demand, like `stripe trigger <event>`, for the events tests need. */
import { chargeOf, closeDispute, openDispute } from './charges'
import type { StripeEvent } from './store'
import { type BillingContext, createCustomer, createSubscription } from './subscriptions'

export interface TriggerOptions {
  email?: string
  /** customer.subscription.created: the fixture subscription's metadata. */
  metadata?: Record<string, string>
  /** charge.dispute.created: the disputed payment. */
  paymentIntent?: string
  charge?: string
  /** charge.dispute.closed: the dispute and how it ended (default `lost`). */
  dispute?: string
  disputeStatus?: 'won' | 'lost' | 'warning_closed' | 'prevented'
}

const FLOWS: Record<string, (ctx: BillingContext, options: TriggerOptions) => unknown> = {
  'customer.created': (ctx, { email }) => createCustomer(ctx, { email: email ?? null, name: null }),
  'customer.subscription.created': (ctx, { email, metadata }) =>
    createSubscription(ctx, {
      customer: createCustomer(ctx, { email: email ?? null, name: null }).id,
      price: ctx.store.price(ctx.store.catalog.plans[0].stripe.priceId),
      quantity: 1,
      metadata: metadata ?? {},
      automaticTax: false,
      now: ctx.store.now(),
    }),
  'charge.dispute.created': (ctx, options) => openDispute(ctx, chargeOf(ctx, options)),
  'charge.dispute.closed': (ctx, options) =>
    closeDispute(ctx, options.dispute ?? '', options.disputeStatus ?? 'lost'),
}

/** Runs the flow that produces `type` and returns that event (the first of its type). */
export function trigger(
  ctx: BillingContext,
  type: string,
  options: TriggerOptions = {},
): StripeEvent {
  const flow = FLOWS[type]
  if (!flow) throw new Error(`Unsupported trigger '${type}'. Supported: ${Object.keys(FLOWS)}`)
  const start = ctx.store.events.size
  flow(ctx, options)
  const event = [...ctx.store.events.values()].slice(start).find((e) => e.type === type)
  if (!event) throw new Error(`Trigger '${type}' produced no such event`)
  return event
}
