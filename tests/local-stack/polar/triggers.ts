import { refundJson } from './checkout-objects'
import type { EmulatorContext } from './context'
import { ApiError, notFound } from './http'
import { orderJson, subscriptionJson } from './objects'
import { refundOrder } from './order-flow'
import {
  cancelSubscription,
  renewSubscription,
  revokeSubscription,
  uncancelSubscription,
} from './subscription-flow'
import type { OrderRecord, RefundRecord, SubscriptionRecord } from './types'

export interface TriggerOptions {
  subscription_id?: string
  order_id?: string
  customer_id?: string
  checkout_id?: string
  /** refund: amount in cents (default: everything refundable). */
  amount?: number
  /** renewal: false simulates a declined renewal charge (order stays pending, subscription past_due). */
  paid?: boolean
}

export interface TriggerResult {
  /** The events this trigger emitted, in delivery order. */
  events: { id: string; type: string }[]
  subscription?: ReturnType<typeof subscriptionJson>
  order?: ReturnType<typeof orderJson>
  refund?: ReturnType<typeof refundJson>
}

/** Trigger types besides raw SDK event types (which re-send the current object as that event). */
export const TRIGGER_TYPES = ['renewal', 'refund', 'cancel', 'uncancel', 'revoke'] as const

/**
 * Runs a lifecycle action or re-sends an object as a given event type. Raw types take the id
 * of their object: `subscription.*` subscription_id, `order.*` order_id, `customer.*`
 * customer_id, `checkout.*` checkout_id.
 */
export function runTrigger(
  ctx: EmulatorContext,
  type: string,
  options: TriggerOptions = {},
): TriggerResult {
  const before = new Set(ctx.webhooks.list().map((d) => d.id))
  let subscription: SubscriptionRecord | undefined
  let order: OrderRecord | null | undefined
  let refund: RefundRecord | undefined
  const { state } = ctx

  if (type === 'renewal') {
    subscription = findSubscription(ctx, options.subscription_id)
    order = renewSubscription(ctx, subscription, { paid: options.paid }).order
  } else if (type === 'refund') {
    order = options.order_id
      ? state.orders.get(options.order_id)
      : latestPaidOrder(ctx, options.subscription_id)
    if (!order) throw notFound('Order not found')
    refund = refundOrder(ctx, order, options.amount)
  } else if (type === 'cancel' || type === 'uncancel' || type === 'revoke') {
    subscription = findSubscription(ctx, options.subscription_id)
    const action = {
      cancel: cancelSubscription,
      uncancel: uncancelSubscription,
      revoke: revokeSubscription,
    }[type]
    action(ctx, subscription)
  } else if (/^subscription\.[a-z_]+$/.test(type)) {
    subscription = findSubscription(ctx, options.subscription_id)
    ctx.emitSubscription(type, subscription)
  } else if (/^order\.[a-z_]+$/.test(type)) {
    order = options.order_id ? state.orders.get(options.order_id) : undefined
    if (!order) throw notFound('Order not found')
    ctx.emitOrder(type, order)
  } else if (/^customer\.(created|updated|deleted)$/.test(type)) {
    const customer = options.customer_id ? state.customers.get(options.customer_id) : undefined
    if (!customer) throw notFound('Customer not found')
    ctx.emitCustomer(type, customer)
  } else if (/^checkout\.(created|updated|expired)$/.test(type)) {
    const checkout = options.checkout_id ? state.checkouts.get(options.checkout_id) : undefined
    if (!checkout) throw notFound('Checkout not found')
    ctx.emitCheckout(type, checkout)
  } else {
    throw new ApiError(
      400,
      'UnknownTriggerType',
      `Unknown trigger type "${type}". Use ${TRIGGER_TYPES.join(', ')} or an event type.`,
    )
  }

  const events = ctx.webhooks
    .list()
    .filter((d) => !before.has(d.id))
    .map((d) => ({ id: d.id, type: d.type }))
  return {
    events,
    ...(subscription ? { subscription: subscriptionJson(state, subscription) } : {}),
    ...(order ? { order: orderJson(state, order) } : {}),
    ...(refund ? { refund: refundJson(state, refund) } : {}),
  }
}

/** The given subscription, or the newest one that is still running. */
function findSubscription(ctx: EmulatorContext, id: string | undefined) {
  const subscriptions = [...ctx.state.subscriptions.values()]
  const found = id
    ? ctx.state.subscriptions.get(id)
    : subscriptions
        .filter((s) => s.status !== 'canceled')
        .reverse()
        .sort((a, b) => b.created_at.localeCompare(a.created_at))[0]
  if (!found) throw notFound('Subscription not found')
  return found
}

function latestPaidOrder(ctx: EmulatorContext, subscriptionId: string | undefined) {
  const subscription = findSubscription(ctx, subscriptionId)
  return ctx.state
    .ordersOf(subscription.id)
    .filter((o) => o.status === 'paid' || o.status === 'partially_refunded')
    .reverse()
    .sort((a, b) => b.created_at.localeCompare(a.created_at))[0]
}
