import { z } from 'zod'

import { paymentDescription } from '~/billing/payment-description'
import type { NewPayment, SubscriptionRow } from '~/subscriptions/types'
import { asUserId } from '~/subscriptions/user-id'

/** Schemas name only the fields we read and let the rest through. */

const metadata = z.record(z.string(), z.unknown()).nullish()
const date = z.string().nullish()

const CustomerSchema = z.looseObject({
  id: z.string(),
  external_id: z.string().nullish(),
  metadata,
})

const ProductSchema = z.looseObject({ id: z.string(), name: z.string().nullish() })

export const PolarSubscriptionSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  customer_id: z.string(),
  product_id: z.string(),
  recurring_interval: z.string().nullish(),
  modified_at: date,
  current_period_start: date,
  current_period_end: date,
  cancel_at_period_end: z.boolean().nullish(),
  canceled_at: date,
  ends_at: date,
  ended_at: date,
  metadata,
  customer: CustomerSchema.nullish(),
  product: ProductSchema.nullish(),
})
export type PolarSubscription = z.infer<typeof PolarSubscriptionSchema>

export const PolarOrderSchema = z.looseObject({
  id: z.string(),
  created_at: z.string(),
  status: z.string().optional(),
  total_amount: z.int(),
  refunded_amount: z.int().nullish(),
  refunded_tax_amount: z.int().nullish(),
  currency: z.string(),
  subscription_id: z.string().nullish(),
  customer_id: z.string().nullish(),
  is_invoice_generated: z.boolean().nullish(),
  metadata,
  customer: CustomerSchema.nullish(),
  product: ProductSchema.nullish(),
})
export type PolarOrder = z.infer<typeof PolarOrderSchema>

export const PolarEnvelopeSchema = z.looseObject({
  type: z.string(),
  timestamp: z.string().optional(),
  data: z.unknown(),
})

/**
 * The metadata `user_id` our checkout sets, unless the customer is bound by `external_id` to
 * someone else (`refused`); never the customer's metadata (docs/polar.md, "Events and effects").
 */
export function polarUserLink(object: Pick<PolarSubscription, 'metadata' | 'customer'>) {
  const userId = asUserId(object.metadata?.user_id)
  if (!userId) return { userId: null, refused: false }
  const boundTo = object.customer?.external_id ?? null
  if (boundTo !== null && asUserId(boundTo) !== userId) return { userId: null, refused: true }
  return { userId, refused: false }
}

export function polarPlanName(product: { name?: string | null } | null | undefined) {
  return product?.name?.trim() || 'Unknown Plan'
}

/** The whole snapshot, then what its type means on top (docs/polar.md, "Events and effects"). */
export function polarSubscriptionFields(
  type: string,
  subscription: PolarSubscription,
): Partial<SubscriptionRow> | null {
  const cancelAt = subscription.cancel_at_period_end
    ? (subscription.ends_at ?? subscription.current_period_end ?? null)
    : null
  const snapshot: Partial<SubscriptionRow> = {
    provider: 'polar',
    polar_customer_id: subscription.customer_id,
    polar_subscription_id: subscription.id,
    polar_product_id: subscription.product_id,
    plan_name: polarPlanName(subscription.product),
    status: subscription.status,
    billing_cycle: subscription.recurring_interval ?? null,
    current_period_start: subscription.current_period_start ?? null,
    current_period_end: subscription.current_period_end ?? null,
    cancel_at_period_end: subscription.cancel_at_period_end ?? false,
    cancel_at: cancelAt,
    canceled_at: subscription.canceled_at ?? null,
  }
  switch (type) {
    case 'subscription.created':
    case 'subscription.updated':
      return snapshot
    case 'subscription.active':
      return { ...snapshot, status: 'active' }
    case 'subscription.canceled':
      return { ...snapshot, cancel_at: cancelAt ?? subscription.ends_at ?? null }
    case 'subscription.uncanceled':
      return { ...snapshot, cancel_at_period_end: false, cancel_at: null, canceled_at: null }
    case 'subscription.revoked':
      return {
        ...snapshot,
        status: 'canceled',
        cancel_at_period_end: false,
        canceled_at: subscription.canceled_at ?? subscription.ended_at ?? new Date().toISOString(),
      }
    default:
      return null
  }
}

/** The payment_history row of a paid order: what the card was charged, tax included (docs/polar.md). */
export function polarOrderPayment(order: PolarOrder, userId: string | null): NewPayment {
  return {
    user_id: userId,
    provider: 'polar',
    provider_payment_id: order.id,
    polar_subscription_id: order.subscription_id ?? null,
    amount: order.total_amount,
    currency: order.currency.toLowerCase(),
    status: 'succeeded',
    description: paymentDescription(order.product?.name),
    invoice_url: null,
    created_at: order.created_at,
  }
}

export function polarRefundPayment(
  order: PolarOrder,
  userId: string | null,
  occurredAt: string,
): NewPayment {
  const refunded = (order.refunded_amount ?? 0) + (order.refunded_tax_amount ?? 0)
  return {
    ...polarOrderPayment(order, userId),
    amount: -Math.abs(refunded || order.total_amount),
    status: 'refunded',
    description: paymentDescription(order.product?.name, 'refund'),
    created_at: occurredAt,
  }
}
