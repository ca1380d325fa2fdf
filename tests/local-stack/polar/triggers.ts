import { ApiError, notFound } from './http'
import { orderJson, refundJson, subscriptionJson } from './objects'
import { refundOrder } from './order-flow'
import type { EmulatorContext } from './state'
import {
  cancelSubscription,
  renewSubscription,
  revokeSubscription,
  uncancelSubscription,
} from './subscription-flow'
import type { OrderRecord, RefundRecord, SubscriptionRecord } from './types'

export interface TriggerOptions {
  /** renewal, cancel, uncancel, revoke: the subscription. */
  subscription_id?: string
  order_id?: string
  /** refund: amount in cents (default: everything refundable). */
  amount?: number
  /** renewal: false simulates a declined renewal charge (order stays pending, subscription past_due). */
  paid?: boolean
}

export interface TriggerResult {
  events: { id: string; type: string }[]
  subscription?: ReturnType<typeof subscriptionJson>
  order?: ReturnType<typeof orderJson>
  refund?: ReturnType<typeof refundJson>
}

const ACTIONS = {
  cancel: cancelSubscription,
  uncancel: uncancelSubscription,
  revoke: revokeSubscription,
}

export function runTrigger(
  ctx: EmulatorContext,
  type: string,
  options: TriggerOptions = {},
): TriggerResult {
  const before = new Set(ctx.webhooks.list().map((d) => d.id))
  const { state } = ctx
  let subscription: SubscriptionRecord | undefined
  let order: OrderRecord | null | undefined
  let refund: RefundRecord | undefined
  if (type === 'refund') {
    order = state.orders.get(options.order_id ?? '')
    if (!order) throw notFound('Order not found')
    refund = refundOrder(ctx, order, options.amount)
  } else if (type === 'renewal' || type in ACTIONS) {
    subscription = state.subscriptions.get(options.subscription_id ?? '')
    if (!subscription) throw notFound('Subscription not found')
    if (type === 'renewal') order = renewSubscription(ctx, subscription, options).order
    else ACTIONS[type as keyof typeof ACTIONS](ctx, subscription)
  } else {
    const known = ['renewal', 'refund', ...Object.keys(ACTIONS)].join(', ')
    throw new ApiError(400, 'UnknownTriggerType', `Unknown trigger type "${type}". Use ${known}.`)
  }
  const events = ctx.webhooks
    .list()
    .filter((d) => !before.has(d.id))
    .map((d) => ({ id: d.id, type: d.type }))
  return {
    events,
    ...(subscription && {
      subscription: subscriptionJson(state, subscription),
    }),
    ...(order && { order: orderJson(state, order) }),
    ...(refund && { refund: refundJson(state, refund) }),
  }
}
