/** Fixture events on demand, like `stripe trigger <event>`, for the events tests need. */
import { z } from 'zod'

import { chargeOf, closeDispute, openDispute } from './charges'
import type { StripeEvent } from './store'
import { type BillingContext, createCustomer, createSubscription } from './subscriptions'

const triggerOptionsSchema = z.object({
  email: z.string().optional(),
  /** customer.subscription.created: the fixture subscription's metadata. */
  metadata: z.record(z.string(), z.string()).optional(),
  /** charge.dispute.created: the disputed payment. */
  paymentIntent: z.string().optional(),
  charge: z.string().optional(),
  /** charge.dispute.closed: the dispute and how it ended (default `lost`). */
  dispute: z.string().optional(),
  disputeStatus: z.enum(['won', 'lost', 'warning_closed', 'prevented']).optional(),
})

export type TriggerOptions = z.input<typeof triggerOptionsSchema>

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
  rawOptions: TriggerOptions = {},
): StripeEvent {
  const flow = FLOWS[type]
  if (!flow) throw new Error(`Unsupported trigger '${type}'. Supported: ${Object.keys(FLOWS)}`)
  const start = ctx.store.events.size
  flow(ctx, triggerOptionsSchema.parse(rawOptions))
  const event = [...ctx.store.events.values()].slice(start).find((e) => e.type === type)
  if (!event) throw new Error(`Trigger '${type}' produced no such event`)
  return event
}
