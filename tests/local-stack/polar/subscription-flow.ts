import { ApiError, bodyError } from './http'
import { createOrder, markOrderPaid } from './order-flow'
import { addInterval, type EmulatorContext, now } from './state'
import type { OrderRecord, SubscriptionRecord } from './types'

// Polar's subscription service sends `subscription.updated` first, then the specific event
// (server/polar/subscription/service.py `_after_subscription_updated`).

function isEnded(subscription: SubscriptionRecord) {
  return subscription.status === 'canceled' || subscription.ended_at !== null
}

function alreadyCanceled() {
  return new ApiError(
    403,
    'AlreadyCanceledSubscription',
    'This subscription is already canceled or will be at the end of the period.',
  )
}

/** Cancel at period end: `subscription.updated`, `subscription.canceled`. */
export function cancelSubscription(ctx: EmulatorContext, subscription: SubscriptionRecord) {
  if (isEnded(subscription) || subscription.cancel_at_period_end) throw alreadyCanceled()
  subscription.cancel_at_period_end = true
  subscription.canceled_at = now()
  subscription.ends_at = subscription.current_period_end
  ctx.touch(subscription)
  ctx.emitSubscription(subscription, 'updated', 'canceled')
  return subscription
}

/** Undo a pending cancellation: `subscription.updated`, `subscription.uncanceled`. */
export function uncancelSubscription(ctx: EmulatorContext, subscription: SubscriptionRecord) {
  if (isEnded(subscription)) throw alreadyCanceled()
  if (!subscription.cancel_at_period_end) {
    throw new ApiError(
      403,
      'SubscriptionNotScheduledToCancel',
      'This subscription is not scheduled to be canceled.',
    )
  }
  subscription.cancel_at_period_end = false
  subscription.canceled_at = null
  subscription.ends_at = null
  ctx.touch(subscription)
  ctx.emitSubscription(subscription, 'updated', 'uncanceled')
  return subscription
}

/** End now: `subscription.updated`, `subscription.canceled`, `subscription.revoked`. */
export function revokeSubscription(ctx: EmulatorContext, subscription: SubscriptionRecord) {
  if (isEnded(subscription)) throw alreadyCanceled()
  const endedAt = now()
  subscription.status = 'canceled'
  subscription.cancel_at_period_end = false
  subscription.canceled_at = subscription.canceled_at ?? endedAt
  subscription.ends_at = endedAt
  subscription.ended_at = endedAt
  ctx.touch(subscription)
  ctx.emitSubscription(subscription, 'updated', 'canceled', 'revoked')
  return subscription
}

/**
 * A product change with the default `prorate` (subscription/service.py `update_product`): the
 * credit and charge for the rest of the period (`_calculate_time_proration`) go to the next order.
 */
export function changeProduct(ctx: EmulatorContext, subscription: SubscriptionRecord, id: string) {
  if (isEnded(subscription) || subscription.cancel_at_period_end) throw alreadyCanceled()
  if (subscription.status !== 'active') {
    throw new ApiError(403, 'InactiveSubscription', 'This subscription is not active.')
  }
  const product = ctx.state.products.get(id)
  if (!product) throw bodyError('product_id', 'Product does not exist.', id)
  const start = Date.parse(subscription.current_period_start)
  const end = Date.parse(subscription.current_period_end)
  const share = end <= start ? 0 : Math.max(0, Math.min(1, (end - Date.now()) / (end - start)))
  const credit = Math.round(subscription.amount * share)
  const charge = Math.round(product.amount * share)
  subscription.product_id = product.id
  subscription.amount = product.amount
  subscription.currency = product.currency
  subscription.recurring_interval = product.recurring_interval
  subscription.pending_proration = (subscription.pending_proration ?? 0) + charge - credit
  ctx.touch(subscription)
  ctx.emitSubscription(subscription, 'updated')
  return subscription
}

export interface RenewalResult {
  subscription: SubscriptionRecord
  order: OrderRecord | null
}

/** The period's end: revoked if set to cancel, else a cycle order, paid or `past_due`. */
export function renewSubscription(
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  options: { paid?: boolean } = {},
): RenewalResult {
  if (isEnded(subscription)) throw alreadyCanceled()
  if (subscription.cancel_at_period_end) {
    return { subscription: revokeSubscription(ctx, subscription), order: null }
  }
  subscription.current_period_start = subscription.current_period_end
  subscription.current_period_end = addInterval(
    subscription.current_period_end,
    subscription.recurring_interval,
  )
  ctx.touch(subscription)
  ctx.emitSubscription(subscription, 'updated')

  // A credit larger than the price is carried to the following period.
  const prorations = subscription.pending_proration ?? 0
  const order = createOrder(ctx, subscription, 'subscription_cycle', {
    prorations,
  })
  subscription.pending_proration = Math.min(0, subscription.amount + prorations)
  if (options.paid === false) {
    subscription.status = 'past_due'
    subscription.past_due_at = now()
    ctx.touch(subscription)
    ctx.emitSubscription(subscription, 'updated', 'past_due')
    return { subscription, order }
  }
  markOrderPaid(ctx, order)
  return { subscription, order }
}
