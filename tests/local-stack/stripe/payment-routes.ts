/** Routes for invoice payments, payment intents, charges and refunds. */
import { chargeOf, refundCharge } from './charges'
import { text } from './checkout'
import { newestFirst, paginate } from './expand'
import { invalid, noSuch } from './http'
import { ID, type Route, route } from './routing'

export const paymentRoutes: Route[] = [
  route('GET', 'invoice_payments', (ctx, { params, path }) => {
    const invoice = text(params.invoice)
    if (invoice && !ctx.store.invoices.has(invoice)) throw noSuch('invoice', invoice, 'invoice')
    const status = text(params.status)
    if (status && !['canceled', 'open', 'paid'].includes(status)) {
      throw invalid(`Invalid status: must be one of canceled, open, or paid`, 'status')
    }
    const payments = [...ctx.store.invoicePayments.values()].filter(
      (payment) =>
        (!invoice || payment.invoice === invoice) && (!status || payment.status === status),
    )
    return paginate(newestFirst(payments), params, path)
  }),
  route('GET', `payment_intents/${ID}`, (ctx, _call, [intentId]) =>
    ctx.store.paymentIntent(intentId),
  ),
  route('GET', `charges/${ID}`, (ctx, _call, [chargeId]) => chargeOf(ctx, { charge: chargeId })),
  route('POST', 'refunds', (ctx, { params, request }) => {
    const charge = chargeOf(ctx, {
      charge: text(params.charge),
      paymentIntent: text(params.payment_intent),
    })
    const amount = text(params.amount)
    return refundCharge(ctx, charge, amount === undefined ? undefined : Number(amount), request)
  }),
]
