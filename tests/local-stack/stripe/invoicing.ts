import { recordCharge } from './charges'
import { type EventRequest, NO_REQUEST } from './events'
import { makeInvoice, type NewInvoice } from './invoice-objects'
import type { CustomerObject, InvoiceObject, SubscriptionObject } from './objects'
import {
  makeInvoicePayment,
  makePaymentIntent,
  recordDecline,
  recordSuccess,
} from './payment-objects'
import type { BillingContext } from './subscriptions'

export function newInvoice(
  ctx: BillingContext,
  subscription: SubscriptionObject,
  customer: CustomerObject,
  billingReason: NewInvoice['billingReason'],
  periodStart: number,
  periodEnd: number,
) {
  const invoice = makeInvoice({
    subscription,
    customer,
    billingReason,
    periodStart,
    periodEnd,
    publicUrl: ctx.publicUrl,
    now: ctx.store.now(),
  })
  ctx.store.invoices.set(invoice.id, invoice)
  return invoice
}

/** Finalizes and charges an invoice: finalized → paid + payment_succeeded, or payment_failed. */
export function settleInvoice(
  ctx: BillingContext,
  invoice: InvoiceObject,
  succeed: boolean,
  request: EventRequest = NO_REQUEST,
) {
  const now = ctx.store.now()
  const customer = ctx.store.customer(invoice.customer)
  invoice.status = 'open'
  invoice.number = ctx.store.nextInvoiceNumber(customer)
  invoice.effective_at = now
  invoice.status_transitions.finalized_at = now
  const charge = openPayment(ctx, invoice)
  const events = [ctx.bus.emit('invoice.finalized', invoice, request)]
  invoice.attempted = true
  invoice.attempt_count = 1
  if (!succeed) {
    if (charge) recordDecline(charge.intent)
    ctx.store.decliningCards.add(customer.id)
    invoice.next_payment_attempt = now + 3 * 86_400
    events.push(ctx.bus.emit('invoice.payment_failed', invoice, request))
    return events
  }
  if (charge) {
    recordSuccess(charge.intent, charge.payment, charge.paymentMethod, now)
    recordCharge(ctx, charge.intent)
  }
  return [...events, ...markInvoicePaid(ctx, invoice, request)]
}

/** `invoice.paid` and `invoice.payment_succeeded` (the first alone when paid out of band). */
export function markInvoicePaid(
  ctx: BillingContext,
  invoice: InvoiceObject,
  request: EventRequest = NO_REQUEST,
  { outOfBand = false } = {},
) {
  const now = ctx.store.now()
  invoice.status = 'paid'
  invoice.amount_paid = invoice.amount_due
  invoice.amount_remaining = 0
  invoice.ending_balance = 0
  invoice.next_payment_attempt = null
  invoice.status_transitions.paid_at = now
  invoice.webhooks_delivered_at = now
  const paid = ctx.bus.emit('invoice.paid', invoice, request)
  return outOfBand ? [paid] : [paid, ctx.bus.emit('invoice.payment_succeeded', invoice, request)]
}

/** Finalizing an invoice with an amount due creates its PaymentIntent and InvoicePayment. */
function openPayment(ctx: BillingContext, invoice: InvoiceObject) {
  if (invoice.amount_due <= 0) return undefined
  const now = ctx.store.now()
  const intent = makePaymentIntent(invoice, now)
  const payment = makeInvoicePayment(invoice, intent, now)
  ctx.store.paymentIntents.set(intent.id, intent)
  ctx.store.invoicePayments.set(payment.id, payment)
  const subscriptionId = invoice.parent?.subscription_details.subscription
  const subscription = subscriptionId ? ctx.store.subscriptions.get(subscriptionId) : undefined
  const paymentMethod = String(subscription?.default_payment_method ?? 'pm_card_visa')
  return { intent, payment, paymentMethod }
}
