import { bodyError } from './api-helpers'
import type { EmulatorContext } from './context'
import { ApiError } from './http'
import { createOrder, markOrderPaid } from './order-flow'
import { addInterval, now } from './state'
import type { Metadata, OrderRecord, ProrationBehavior, SubscriptionRecord } from './types'

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

/**
 * Polar's time proration (server/polar/subscription/update.py `_calculate_time_proration`):
 * the share of the current period still to run, 0 once it has ended.
 */
export function remainingShare(subscription: SubscriptionRecord, at = Date.now()) {
  const start = Date.parse(subscription.current_period_start)
  const end = Date.parse(subscription.current_period_end)
  if (end <= start) return 0
  return Math.max(0, Math.min(1, (end - at) / (end - start)))
}

/**
 * `PATCH /v1/subscriptions/{id}` with `product_id` (subscription/service.py `update_product`):
 * - refused with 403 `AlreadyCanceledSubscription` when it ended or is set to cancel, 403
 *   `InactiveSubscription` when it is not active or trialing; 422 for an unknown product;
 * - `proration_behavior` defaults to the organization's setting, `prorate`;
 * - `next_period`: nothing changes now but `pending_update`; the product switches at renewal;
 * - otherwise the product switches now. Prorations: a credit for the unused share of the old
 *   price and a charge for that share of the new one, each rounded (update.py). `prorate`
 *   adds their sum to the next period's order; `invoice` bills a positive sum now in a
 *   `subscription_update` order (a credit goes to the next order); `reset` bills the new
 *   price in full now and restarts the period.
 * Events: `subscription.updated`, then the order's (`order.created`, `order.updated`,
 * `order.paid`) when one is billed now.
 */
export function changeProduct(
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  update: {
    product_id: string
    proration_behavior?: ProrationBehavior | null
    metadata?: Metadata
  },
) {
  if (isEnded(subscription) || subscription.cancel_at_period_end) throw alreadyCanceled()
  if (subscription.status !== 'active' && subscription.status !== 'trialing') {
    throw new ApiError(403, 'InactiveSubscription', 'This subscription is not active.')
  }
  const product = ctx.state.products.get(update.product_id)
  if (!product) throw bodyError('product_id', 'Product does not exist.', update.product_id)
  const behavior = update.proration_behavior ?? 'prorate'
  if (update.metadata) subscription.metadata = { ...update.metadata }

  if (behavior === 'next_period') {
    const stamp = now()
    subscription.pending_update = {
      id: ctx.state.newId(),
      created_at: stamp,
      modified_at: null,
      applies_at: subscription.current_period_end,
      product_id: product.id,
      seats: null,
      units: null,
    }
    ctx.touch(subscription)
    ctx.emitSubscription('subscription.updated', subscription)
    return subscription
  }

  const share = remainingShare(subscription)
  const credit = Math.round(subscription.amount * share)
  const charge = Math.round(product.amount * share)
  subscription.pending_update = null
  subscription.product_id = product.id
  subscription.amount = product.amount
  subscription.currency = product.currency
  subscription.recurring_interval = product.recurring_interval
  let billNow: number | null = null
  if (behavior === 'reset') {
    const start = now()
    subscription.current_period_start = start
    subscription.current_period_end = addInterval(start, product.recurring_interval)
    subscription.pending_proration = (subscription.pending_proration ?? 0) - credit
    billNow = product.amount
  } else if (behavior === 'invoice' && charge - credit > 0) {
    billNow = charge - credit
  } else {
    subscription.pending_proration = (subscription.pending_proration ?? 0) + charge - credit
  }
  ctx.touch(subscription)
  ctx.emitSubscription('subscription.updated', subscription)
  if (billNow !== null) {
    markOrderPaid(ctx, createOrder(ctx, subscription, 'subscription_update', { amount: billNow }))
  }
  return subscription
}

/** At renewal: a pending product change applies, and pending prorations are billed. */
function applyPendingAtRenewal(subscription: SubscriptionRecord, ctx: EmulatorContext) {
  const pending = subscription.pending_update
  if (pending?.product_id) {
    const product = ctx.state.product(pending.product_id)
    subscription.product_id = product.id
    subscription.amount = product.amount
    subscription.currency = product.currency
    subscription.recurring_interval = product.recurring_interval
  }
  subscription.pending_update = null
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
  applyPendingAtRenewal(subscription, ctx)
  subscription.current_period_start = subscription.current_period_end
  subscription.current_period_end = addInterval(
    subscription.current_period_end,
    subscription.recurring_interval,
  )
  ctx.touch(subscription)
  ctx.emitSubscription('subscription.updated', subscription)

  // A credit larger than the price is carried to the following period.
  const prorations = subscription.pending_proration ?? 0
  const order = createOrder(ctx, subscription, 'subscription_cycle', { prorations })
  subscription.pending_proration = Math.min(0, subscription.amount + prorations)
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
