import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'

import { getPolar, type PolarClient } from './client.server'

type Options = { timeoutSeconds: number }

/** 409 and 422 are answers, not failures. */
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

/** Null while Polar answers 404 (not generated yet). */
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
 * POST then GET /v1/orders/{id}/invoice (409: it exists on older servers, or the order is not
 * eligible on newer ones). Other failures throw: the payment is kept without a URL.
 */
export async function fetchOrderInvoiceUrl(
  orderId: string,
  options: Options & { generate?: boolean },
): Promise<string | null> {
  const polar = getPolar('invoices')
  if (options.generate !== false) await generateInvoice(polar, orderId, options)
  return readInvoiceUrl(polar, orderId, options)
}

/** Generates when Polar has none yet: order.paid's request may never have reached Polar. */
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
