import {
  type EventBus,
  type EventRequest,
  NO_REQUEST,
  previousAttributes,
  snapshot,
} from './events'
import { invalid, randomId } from './http'
import { newInvoice, settleInvoice } from './invoicing'
import {
  addInterval,
  type InvoiceObject,
  makeCustomer,
  makeSubscription,
  makeSubscriptionItem,
  type Metadata,
  type NewSubscription,
  type SubscriptionObject,
} from './objects'
import type { Store, StripeEvent } from './store'

export interface BillingContext {
  store: Store
  bus: EventBus
  publicUrl: string
}

export function createCustomer(
  ctx: BillingContext,
  input: { email: string | null; name: string | null; metadata?: Metadata },
  request: EventRequest = NO_REQUEST,
) {
  const customer = makeCustomer(randomId('cus', 14), input.email, input.name, ctx.store.now())
  Object.assign(customer.metadata, input.metadata ?? {})
  ctx.store.customers.set(customer.id, customer)
  ctx.bus.emit('customer.created', customer, request)
  return customer
}

export function openSubscription(ctx: BillingContext, input: NewSubscription) {
  const customer = ctx.store.customer(input.customer, 'customer')
  const subscription = makeSubscription(input)
  const invoice = newInvoice(
    ctx,
    subscription,
    customer,
    'subscription_create',
    input.now,
    input.now,
  )
  subscription.latest_invoice = invoice.id
  ctx.store.subscriptions.set(subscription.id, subscription)
  return { subscription, invoice }
}

/** customer.subscription.created, then the first invoice created → finalized → paid. */
export function announceSubscription(
  ctx: BillingContext,
  subscription: SubscriptionObject,
  invoice: InvoiceObject,
  request: EventRequest = NO_REQUEST,
) {
  const events = [ctx.bus.emit('customer.subscription.created', subscription, request)]
  events.push(ctx.bus.emit('invoice.created', invoice, request))
  return [...events, ...settleInvoice(ctx, invoice, true, request)]
}

export function createSubscription(
  ctx: BillingContext,
  input: NewSubscription,
  request: EventRequest = NO_REQUEST,
) {
  const { subscription, invoice } = openSubscription(ctx, input)
  announceSubscription(ctx, subscription, invoice, request)
  return subscription
}

export interface SubscriptionChange {
  cancelAtPeriodEnd?: boolean
  /** Swap the price of this item (or of the only item when `itemId` is absent). */
  price?: { priceId: string; itemId?: string; quantity?: number }
  feedback?: string | null
  comment?: string | null
}

/** Applies a change and emits `customer.subscription.updated` with `previous_attributes`. */
export function updateSubscription(
  ctx: BillingContext,
  sub: SubscriptionObject,
  change: SubscriptionChange,
  request: EventRequest = NO_REQUEST,
): StripeEvent | undefined {
  if (sub.status === 'canceled') {
    throw invalid('A canceled subscription can only update its cancellation_details and metadata.')
  }
  const before = snapshot(sub)
  const now = ctx.store.now()
  if (change.cancelAtPeriodEnd === true && !sub.cancel_at_period_end) {
    sub.cancel_at_period_end = true
    sub.cancel_at = sub.items.data[0].current_period_end
    sub.canceled_at = now
    sub.cancellation_details = {
      comment: change.comment ?? null,
      feedback: change.feedback ?? null,
      feedback_option: null,
      reason: 'cancellation_requested',
    }
  } else if (change.cancelAtPeriodEnd === false && sub.cancel_at_period_end) {
    sub.cancel_at_period_end = false
    sub.cancel_at = null
    sub.canceled_at = null
    sub.cancellation_details = {
      comment: null,
      feedback: null,
      feedback_option: null,
      reason: null,
    }
  }
  if (change.price) swapPrice(ctx, sub, change.price)
  const previous = previousAttributes(before, sub)
  if (Object.keys(previous).length === 0) return undefined
  return ctx.bus.emit('customer.subscription.updated', sub, request, previous)
}

function swapPrice(
  ctx: BillingContext,
  sub: SubscriptionObject,
  change: SubscriptionChange['price'] & {},
) {
  const price = ctx.store.price(change.priceId, 'items[0][price]')
  const item = change.itemId
    ? sub.items.data.find((candidate) => candidate.id === change.itemId)
    : sub.items.data[0]
  if (!item) throw invalid(`No such subscription item: '${change.itemId}'`, 'items[0][id]')
  item.price = price
  item.plan = makeSubscriptionItem(sub.id, price, 1, item.current_period_start).plan
  if (change.quantity) item.quantity = change.quantity
}

export function cancelSubscription(
  ctx: BillingContext,
  sub: SubscriptionObject,
  details: { feedback?: string | null; comment?: string | null; reason?: string },
  request: EventRequest = NO_REQUEST,
  endedAt = ctx.store.now(),
) {
  if (sub.status === 'canceled') {
    throw invalid(`This subscription has already been canceled.`, undefined, 'resource_missing')
  }
  sub.status = 'canceled'
  sub.ended_at = endedAt
  sub.canceled_at ??= endedAt
  sub.cancellation_details = {
    comment: details.comment ?? sub.cancellation_details.comment,
    feedback: details.feedback ?? sub.cancellation_details.feedback,
    feedback_option: null,
    reason: details.reason ?? 'cancellation_requested',
  }
  return ctx.bus.emit('customer.subscription.deleted', sub, request)
}

/** To the period's end: ends a subscription set to cancel, else renews (`fail`: past due). */
export function advanceSubscription(ctx: BillingContext, sub: SubscriptionObject, fail = false) {
  if (sub.status === 'canceled') throw invalid('This subscription has already been canceled.')
  const periodEnd = sub.items.data[0].current_period_end
  ctx.store.advanceClock(Math.max(0, periodEnd - ctx.store.now()))
  if (sub.cancel_at_period_end || (sub.cancel_at !== null && sub.cancel_at <= periodEnd)) {
    return [cancelSubscription(ctx, sub, {}, NO_REQUEST, periodEnd)]
  }
  const before = snapshot(sub)
  const periodStart = sub.items.data[0].current_period_start
  for (const item of sub.items.data) {
    item.current_period_start = item.current_period_end
    item.current_period_end = addInterval(item.current_period_end, item.price)
  }
  const customer = ctx.store.customer(sub.customer)
  const invoice = newInvoice(ctx, sub, customer, 'subscription_cycle', periodStart, periodEnd)
  sub.latest_invoice = invoice.id
  const events = [
    ctx.bus.emit('customer.subscription.updated', sub, NO_REQUEST, previousAttributes(before, sub)),
    ctx.bus.emit('invoice.created', invoice),
    ...settleInvoice(ctx, invoice, !fail),
  ]
  if (fail) {
    const beforeFailure = snapshot(sub)
    sub.status = 'past_due'
    const previous = previousAttributes(beforeFailure, sub)
    events.push(ctx.bus.emit('customer.subscription.updated', sub, NO_REQUEST, previous))
  }
  return events
}
