/** Routes for checkout line items, invoice payments, payment intents, charges, refunds and disputes. */
import { chargeOf, closeDispute, refundCharge } from './charges'
import { field, text } from './checkout'
import { newestFirst, paginate } from './expand'
import { invalid, missingParam, noSuch, type Params } from './http'
import { sessionLineItems } from './line-items'
import type { InvoicePaymentObject } from './payment-objects'
import { ID, type Route, route } from './routing'
import type { Store } from './store'

export const paymentRoutes: Route[] = [
  route('GET', `checkout/sessions/${ID}/line_items`, (ctx, { params, path }, [sessionId]) =>
    paginate(sessionLineItems(ctx.store, sessionId), params, path),
  ),
  route('GET', `invoice_payments/${ID}`, (ctx, _call, [paymentId]) =>
    ctx.store.invoicePayment(paymentId),
  ),
  route('GET', 'invoice_payments', (ctx, { params, path }) =>
    paginate(newestFirst(filterPayments(ctx.store, params)), params, path),
  ),
  route('GET', `payment_intents/${ID}`, (ctx, _call, [intentId]) =>
    ctx.store.paymentIntent(intentId),
  ),
  route('GET', `charges/${ID}`, (ctx, _call, [chargeId]) => chargeOf(ctx, { charge: chargeId })),
  route('GET', 'charges', (ctx, { params, path }) => {
    const intent = text(params.payment_intent)
    const customer = text(params.customer)
    const charges = newestFirst(ctx.store.charges.values()).filter(
      (charge) =>
        (!intent || charge.payment_intent === intent) &&
        (!customer || charge.customer === customer),
    )
    return paginate(charges, params, path)
  }),
  route('POST', 'refunds', (ctx, { params, request }) => {
    const charge = chargeOf(ctx, {
      charge: text(params.charge),
      paymentIntent: text(params.payment_intent),
    })
    const amount = text(params.amount)
    return refundCharge(ctx, charge, amount === undefined ? undefined : Number(amount), request)
  }),
  route('GET', `refunds/${ID}`, (ctx, _call, [refundId]) => {
    const refund = ctx.store.refunds.get(refundId)
    if (!refund) throw noSuch('refund', refundId)
    return refund
  }),
  route('GET', `disputes/${ID}`, (ctx, _call, [disputeId]) => {
    const dispute = ctx.store.disputes.get(disputeId)
    if (!dispute) throw noSuch('dispute', disputeId)
    return dispute
  }),
  route('POST', `disputes/${ID}/close`, (ctx, { request }, [disputeId]) =>
    closeDispute(ctx, disputeId, 'lost', request),
  ),
]

const PAYMENT_STATUSES = ['canceled', 'open', 'paid']
const PAYMENT_TYPES = ['payment_intent', 'payment_record']

/** `GET /v1/invoice_payments` filters: `invoice`, `status`, `payment[type]`, `payment[payment_intent]`. */
function filterPayments(store: Store, params: Params): InvoicePaymentObject[] {
  const invoice = text(params.invoice)
  if (invoice && !store.invoices.has(invoice)) throw noSuch('invoice', invoice, 'invoice')
  const status = text(params.status)
  if (status && !PAYMENT_STATUSES.includes(status)) {
    throw invalid(`Invalid status: must be one of canceled, open, or paid`, 'status')
  }
  const type = text(field(params.payment, 'type'))
  if (params.payment !== undefined && !type) throw missingParam('payment[type]')
  if (type && !PAYMENT_TYPES.includes(type)) {
    throw invalid(
      `Invalid payment[type]: must be one of payment_intent or payment_record`,
      'payment[type]',
    )
  }
  const intent = text(field(params.payment, 'payment_intent'))
  return [...store.invoicePayments.values()].filter(
    (payment) =>
      (!invoice || payment.invoice === invoice) &&
      (!status || payment.status === status) &&
      (!type || payment.payment.type === type) &&
      (!intent || payment.payment.payment_intent === intent),
  )
}
