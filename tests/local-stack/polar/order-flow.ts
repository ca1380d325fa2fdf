import { ApiError } from './http'
import { type EmulatorContext, now } from './state'
import type { Address, OrderRecord, RefundRecord, SubscriptionRecord } from './types'

const INVOICEABLE = new Set<OrderRecord['status']>(['paid', 'refunded', 'partially_refunded'])

/** The invoice exists `invoiceDelayMs` later (`order.updated`); a later POST regenerates it. */
export function requestInvoice(ctx: EmulatorContext, order: OrderRecord) {
  if (!INVOICEABLE.has(order.status)) {
    throw new ApiError(
      409,
      'OrderNotEligibleForInvoice',
      'Order is not eligible for invoice generation.',
    )
  }
  if (!order.billing_name || !order.billing_address) {
    throw new ApiError(
      422,
      'MissingInvoiceBillingDetails',
      'Order is missing billing name or address.',
    )
  }
  const finish = () => {
    order.is_invoice_generated = true
    ctx.touch(order)
    ctx.emitOrder(order, 'updated')
  }
  if (ctx.invoiceDelayMs <= 0) finish()
  else ctx.later(ctx.invoiceDelayMs, finish)
}

/** `GET /v1/orders/{id}/invoice`: the URL once generated, 404 before. */
export function invoiceUrl(ctx: EmulatorContext, order: OrderRecord) {
  if (!order.is_invoice_generated) {
    throw new ApiError(
      404,
      'ResourceNotFound',
      'Invoice not found. Generate it first, then wait for it.',
    )
  }
  return `${ctx.publicUrl}/invoices/${order.id}`
}

/** Refunds an order (fully by default): `refund.created`, `order.updated`, `order.refunded`. */
export function refundOrder(
  ctx: EmulatorContext,
  order: OrderRecord,
  amount?: number,
): RefundRecord {
  const refundable = order.amount - order.refunded_amount
  const taxLeft = order.tax_amount - order.refunded_tax_amount
  if (order.status !== 'paid' && order.status !== 'partially_refunded') {
    throw new ApiError(
      403,
      'RefundedAlready',
      `Order ${order.id} is ${order.status} and cannot be refunded.`,
    )
  }
  const value = amount ?? refundable
  if (!Number.isInteger(value) || value <= 0 || value > refundable) {
    throw new ApiError(
      400,
      'RefundAmountTooHigh',
      `Refund amount must be between 1 and ${refundable}.`,
    )
  }
  // Polar's `calculate_refunded_tax_from_subtotal`: the amount is net, its share of tax added.
  const tax =
    value === refundable
      ? taxLeft
      : Math.min(taxLeft, Math.round((value * order.tax_amount) / order.amount))
  const refund: RefundRecord = {
    id: ctx.state.newId(),
    created_at: now(),
    order_id: order.id,
    subscription_id: order.subscription_id,
    customer_id: order.customer_id,
    amount: value,
    tax_amount: tax,
    currency: order.currency,
  }
  order.refunded_amount += value
  order.refunded_tax_amount += tax
  order.status = order.refunded_amount >= order.amount ? 'refunded' : 'partially_refunded'
  ctx.touch(order)
  ctx.emitRefund(refund)
  ctx.emitOrder(order, 'updated', 'refunded')
  return refund
}

/** `order.created`; a checkout's order is paid at once (`order.updated`, `order.paid`). */
export function createOrder(
  ctx: EmulatorContext,
  subscription: SubscriptionRecord,
  billingReason: OrderRecord['billing_reason'],
  options: {
    checkoutId?: string
    billingName?: string
    address?: Address
    paid?: boolean
    /** Pending prorations (signed) added to the price; the order is never below zero. */
    prorations?: number
  } = {},
): OrderRecord {
  const customer = ctx.state.customer(subscription.customer_id)
  const amount = Math.max(0, subscription.amount + (options.prorations ?? 0))
  const address = options.address ?? customer.billing_address
  const rate = ctx.state.taxRates.get(address?.country ?? '') ?? 0
  const order: OrderRecord = {
    id: ctx.state.newId(),
    created_at: now(),
    modified_at: null,
    status: options.paid ? 'paid' : 'pending',
    customer_id: customer.id,
    product_id: subscription.product_id,
    subscription_id: subscription.id,
    checkout_id: options.checkoutId ?? null,
    billing_reason: billingReason,
    amount,
    tax_amount: Math.round((amount * rate) / 100),
    currency: subscription.currency,
    refunded_amount: 0,
    refunded_tax_amount: 0,
    billing_name: options.billingName ?? customer.name,
    billing_address: address,
    invoice_number: ctx.state.nextInvoiceNumber(),
    is_invoice_generated: false,
    metadata: { ...subscription.metadata },
    period_start: subscription.current_period_start,
    period_end: subscription.current_period_end,
  }
  ctx.state.orders.set(order.id, order)
  ctx.emitOrder(order, 'created')
  if (options.paid) {
    ctx.emitOrder(order, 'updated', 'paid')
  }
  return order
}

export function markOrderPaid(ctx: EmulatorContext, order: OrderRecord) {
  order.status = 'paid'
  ctx.touch(order)
  ctx.emitOrder(order, 'updated', 'paid')
}
