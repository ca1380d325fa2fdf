import Stripe from 'stripe'

import { parsePayload } from '~/billing/webhooks/outcome.server'

import { getStripe } from './client.server'
import { paidPaymentIntent, StripeInvoicePaymentsSchema } from './events'

/** A lookup that can wait: bounded by `timeoutMs`, not retried. */
const requestOptions = (options: { timeoutMs: number }): Stripe.RequestOptions => ({
  timeout: options.timeoutMs,
  maxNetworkRetries: 0,
})

function nullWhenMissing(error: unknown): null {
  if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing')
    return null
  throw error
}

/** Since API version basil neither the invoice nor its webhook payload names it, nor its card. */
export async function fetchInvoicePaymentIntent(invoiceId: string, options: { timeoutMs: number }) {
  const expand = ['data.payment.payment_intent.payment_method']
  const payments = await getStripe()
    .invoicePayments.list({ invoice: invoiceId, status: 'paid', expand }, requestOptions(options))
    .catch(nullWhenMissing)
  return payments && paidPaymentIntent(parsePayload(StripeInvoicePaymentsSchema, payments))
}

export async function fetchHostedInvoiceUrl(invoiceId: string, options: { timeoutMs: number }) {
  const invoice = await getStripe()
    .invoices.retrieve(invoiceId, {}, requestOptions(options))
    .catch(nullWhenMissing)
  return invoice?.hosted_invoice_url ?? null
}
