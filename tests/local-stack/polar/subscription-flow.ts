import type { EmulatorContext } from './context'
import { ApiError } from './http'
import { createOrder, markOrderPaid } from './order-flow'
import { addInterval, now } from './state'
import type { OrderRecord, SubscriptionRecord } from './types'

// Polar's subscription service sends `subscription.updated` first, then the specific event
// (server/polar/subscription/service.py `_after_subscription_updated`).

export interface CancellationReason {
  customer_cancellation_reason?: string | null
  customer_cancellation_comment?: string | null
}

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

function applyReason(subscription: SubscriptionRecord, reason: CancellationReason) {
  if (reason.customer_cancellation_reason !== undefined) {
    subscription.customer_cancellation_reason = reason.customer_cancellation_reason
  }
  if (reason.customer_cancellation_comment !== undefined) {
    subscription.customer_cancellation_comment = reason.customer_cancellation_comment
  }
}

/** Cancel at period end: `subscription.updated`, `subscription.canceled`. */
export function cancelSubscription(
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  reason: CancellationReason = {},
) {
  if (isEnded(subscription) || subscription.cancel_at_period_end) throw alreadyCanceled()
  subscription.cancel_at_period_end = true
  subscription.canceled_at = now()
  subscription.ends_at = subscription.current_period_end
  applyReason(subscription, reason)
  ctx.touch(subscription)
  ctx.emitSubscription('subscription.updated', subscription)
  ctx.emitSubscription('subscription.canceled', subscription)
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
  subscription.customer_cancellation_reason = null
  subscription.customer_cancellation_comment = null
  ctx.touch(subscription)
  ctx.emitSubscription('subscription.updated', subscription)
  ctx.emitSubscription('subscription.uncanceled', subscription)
  return subscription
}

/** End now: `subscription.updated`, `subscription.canceled`, `subscription.revoked`. */
export function revokeSubscription(
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  reason: CancellationReason = {},
) {
  if (isEnded(subscription)) throw alreadyCanceled()
  const endedAt = now()
  subscription.status = 'canceled'
  subscription.cancel_at_period_end = false
  subscription.canceled_at = subscription.canceled_at ?? endedAt
  subscription.ends_at = endedAt
  subscription.ended_at = endedAt
  applyReason(subscription, reason)
  ctx.touch(subscription)
  ctx.emitSubscription('subscription.updated', subscription)
  ctx.emitSubscription('subscription.canceled', subscription)
  ctx.emitSubscription('subscription.revoked', subscription)
  return subscription
}

export interface RenewalResult {
  subscription: SubscriptionRecord
  order: OrderRecord | null
}

/**
 * The end of a billing period. A subscription set to cancel ends (revoked). Otherwise the
 * period advances (`subscription.updated`), a `subscription_cycle` order is created
 * (`order.created`) and charged: paid → `order.updated`, `order.paid`; declined → the
 * subscription becomes `past_due` (`subscription.updated`, `subscription.past_due`).
 */
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
  ctx.emitSubscription('subscription.updated', subscription)

  const order = createOrder(ctx, subscription, 'subscription_cycle')
  if (options.paid === false) {
    subscription.status = 'past_due'
    subscription.past_due_at = now()
    ctx.touch(subscription)
    ctx.emitSubscription('subscription.updated', subscription)
    ctx.emitSubscription('subscription.past_due', subscription)
    return { subscription, order }
  }
  markOrderPaid(ctx, order)
  return { subscription, order }
}
