import Stripe from 'stripe'

import { parsePayload } from '~/billing/webhooks/outcome.server'

import { getStripe } from './client.server'
import { paidPaymentIntentId, StripeInvoicePaymentsSchema } from './events'

type Options = { timeoutMs?: number }

function requestOptions(options: Options): Stripe.RequestOptions | undefined {
  return options.timeoutMs ? { timeout: options.timeoutMs, maxNetworkRetries: 0 } : undefined
}

const isMissing = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing'

/**
 * The PaymentIntent that paid an invoice, read from Stripe's invoice payments: since API
 * version basil neither the invoice nor its webhook payload names it. Null when none paid
 * it or Stripe does not know the invoice; any other failure throws.
 */
export async function fetchInvoicePaymentIntentId(invoiceId: string, options: Options = {}) {
  try {
    const payments = await getStripe().invoicePayments.list(
      { invoice: invoiceId, status: 'paid' },
      requestOptions(options),
    )
    return paidPaymentIntentId(parsePayload(StripeInvoicePaymentsSchema, payments))
  } catch (error) {
    if (isMissing(error)) return null
    throw error
  }
}

/** The hosted page of an invoice, or null when it has none or Stripe does not know it. */
export async function fetchHostedInvoiceUrl(invoiceId: string, options: Options = {}) {
  try {
    const invoice = await getStripe().invoices.retrieve(invoiceId, {}, requestOptions(options))
    return invoice.hosted_invoice_url ?? null
  } catch (error) {
    if (isMissing(error)) return null
    throw error
  }
}
