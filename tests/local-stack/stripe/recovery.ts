/**
 * Payment recovery. A failed renewal marks the customer's card as declining until a new one
 * is saved in the portal; a retry or `invoices.pay` charges the card on file, the hosted
 * invoice page the card typed on it.
 */
import { recordCharge } from './charges'
import { checkCard } from './checkout'
import { type EventRequest, NO_REQUEST, previousAttributes, snapshot } from './events'
import { invalid, StripeApiError } from './http'
import { markInvoicePaid } from './invoicing'
import type { CustomerObject, InvoiceObject } from './objects'
import { recordDecline, recordSuccess, saveCard } from './payment-objects'
import type { StripeEvent } from './store'
import type { BillingContext } from './subscriptions'

export type PaymentOutcome =
  | { ok: true; events: StripeEvent[] }
  | { ok: false; message: string; code: string; events: StripeEvent[] }

/** Where the money comes from: a card typed on the hosted invoice page, or the card on file. */
export type PaymentSource = { card: string } | 'card_on_file'

/** Pays an open invoice (reactivating a past-due subscription), or `invoice.payment_failed`. */
export function payInvoice(
  ctx: BillingContext,
  invoice: InvoiceObject,
  source: PaymentSource,
  request: EventRequest = NO_REQUEST,
): PaymentOutcome {
  if (invoice.status !== 'open') {
    throw invalid(`Invoice is already ${invoice.status}`, undefined, 'invoice_not_editable')
  }
  const customer = ctx.store.customer(invoice.customer)
  const check =
    source === 'card_on_file'
      ? ctx.store.decliningCards.has(customer.id)
        ? { ok: false as const, message: 'Your card was declined.', code: 'card_declined' }
        : { ok: true as const }
      : checkCard(source.card)
  const [payment] = ctx.store.paymentsOf(invoice.id)
  const intent = payment ? ctx.store.paymentIntents.get(payment.payment.payment_intent) : undefined
  if (!check.ok) {
    if (check.code === 'incorrect_number') return { ...check, events: [] }
    if (intent) recordDecline(intent)
    // Only automatic retries move the retry schedule (Stripe's `attempt_count`).
    if (source === 'card_on_file') invoice.attempt_count += 1
    return { ...check, events: [ctx.bus.emit('invoice.payment_failed', invoice, request)] }
  }
  const paymentMethod =
    source === 'card_on_file'
      ? defaultPaymentMethod(customer)
      : saveCard(ctx.store, source.card, customer.id)
  if (payment && intent) {
    recordSuccess(intent, payment, paymentMethod, ctx.store.now())
    recordCharge(ctx, intent)
  }
  const events = markInvoicePaid(ctx, invoice, request)
  const recovered = reactivate(ctx, invoice, request)
  return { ok: true, events: recovered ? [...events, recovered] : events }
}

/** A past-due subscription whose latest invoice is now paid is `active` again. */
function reactivate(ctx: BillingContext, invoice: InvoiceObject, request: EventRequest) {
  const subscriptionId = invoice.parent?.subscription_details.subscription
  const sub = subscriptionId ? ctx.store.subscriptions.get(subscriptionId) : undefined
  if (!sub || sub.latest_invoice !== invoice.id) return undefined
  if (sub.status !== 'past_due' && sub.status !== 'unpaid') return undefined
  const before = snapshot(sub)
  sub.status = 'active'
  return ctx.bus.emit(
    'customer.subscription.updated',
    sub,
    request,
    previousAttributes(before, sub),
  )
}

function defaultPaymentMethod(customer: CustomerObject) {
  const settings = customer.invoice_settings as { default_payment_method: string | null }
  return settings.default_payment_method ?? 'pm_card_visa'
}

/** The portal's new card becomes the default payment method; open invoices wait for a retry. */
export function updatePaymentMethod(
  ctx: BillingContext,
  customer: CustomerObject,
  cardNumber: string,
): { ok: true; event: StripeEvent } | { ok: false; message: string; code: string } {
  const check = checkCard(cardNumber)
  if (!check.ok) return check
  const before = snapshot(customer)
  const settings = customer.invoice_settings as Record<string, unknown>
  const card = saveCard(ctx.store, cardNumber, customer.id)
  customer.invoice_settings = { ...settings, default_payment_method: card }
  ctx.store.decliningCards.delete(customer.id)
  const event = ctx.bus.emit(
    'customer.updated',
    customer,
    NO_REQUEST,
    previousAttributes(before, customer),
  )
  return { ok: true, event }
}

/**
 * `POST /v1/invoices/:id/pay`: the card on file (a decline is a 402), or `paid_out_of_band`:
 * `invoice.paid` alone, as no payment attempt succeeded (docs.stripe.com/api/events/types).
 */
export function payInvoiceByApi(
  ctx: BillingContext,
  invoiceId: string,
  request: EventRequest,
  outOfBand = false,
) {
  const invoice = ctx.store.invoice(invoiceId)
  if (outOfBand) {
    if (invoice.status !== 'open') {
      throw invalid(`Invoice is already ${invoice.status}`, undefined, 'invoice_not_editable')
    }
    for (const payment of ctx.store.paymentsOf(invoice.id)) {
      payment.status = 'canceled'
      const intent = ctx.store.paymentIntents.get(payment.payment.payment_intent)
      if (intent) Object.assign(intent, { status: 'canceled', canceled_at: ctx.store.now() })
    }
    markInvoicePaid(ctx, invoice, request, { outOfBand })
    reactivate(ctx, invoice, request)
    return invoice
  }
  const outcome = payInvoice(ctx, invoice, 'card_on_file', request)
  if (!outcome.ok) {
    throw new StripeApiError(402, 'card_error', outcome.message, outcome.code)
  }
  return invoice
}
