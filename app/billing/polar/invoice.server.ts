import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'

import { getPolar, type PolarClient } from './client.server'

type Options = { timeoutSeconds: number }

/** Asks Polar to generate the order's invoice (202); 409 and 422 are answers, not failures. */
async function generateInvoice(polar: PolarClient, orderId: string, options: Options) {
  try {
    await polar.orders.generateInvoice(orderId, { timeout: options.timeoutSeconds })
  } catch (error) {
    const status = httpStatusOf(error)
    if (status !== 409 && status !== 422) throw error
    if (status === 422)
      logger.warn({ order: orderId }, 'polar: order is missing billing details for an invoice')
  }
}

/** The URL of the order's invoice, or null while Polar answers 404 (not generated yet). */
async function readInvoiceUrl(polar: PolarClient, orderId: string, options: Options) {
  try {
    const invoice = await polar.orders.invoice(orderId, { timeout: options.timeoutSeconds })
    return invoice.url ?? null
  } catch (error) {
    if (httpStatusOf(error) === 404) return null
    throw error
  }
}

/**
 * The hosted invoice URL of a paid order, or null when Polar has not generated it yet.
 * Spec: POST /v1/orders/{id}/invoice (202 starts generation; 409 means it already exists
 * on older servers or the order is not eligible on newer ones), then GET
 * /v1/orders/{id}/invoice (404 until generated). Any other failure (network, timeout,
 * 5xx, an order Polar does not know) throws: the webhook handlers catch it, record the
 * payment without a URL and answer 200, since the URL is not needed to record the event
 * (see `lookUpOrderInvoiceUrl` and docs/webhooks.md, "Invoice URLs later").
 */
export async function fetchOrderInvoiceUrl(
  orderId: string,
  options: Options & { generate?: boolean },
): Promise<string | null> {
  const polar = getPolar('invoices')
  if (options.generate !== false) await generateInvoice(polar, orderId, options)
  return readInvoiceUrl(polar, orderId, options)
}

/**
 * The invoice URL of an order recorded without one, looked up later (the billing page):
 * read it first; when Polar has none yet, ask it to generate one (order.paid's request
 * may never have reached Polar) and read again. Null when there is still none; failures
 * throw.
 */
export async function lookUpOrderInvoiceUrl(
  orderId: string,
  options: Options,
): Promise<string | null> {
  const polar = getPolar('invoices')
  const url = await readInvoiceUrl(polar, orderId, options)
  if (url) return url
  await generateInvoice(polar, orderId, options)
  return readInvoiceUrl(polar, orderId, options)
}
