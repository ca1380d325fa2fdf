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

/** A paid order's invoice URL (POST to generate, then GET), null while not generated; failures throw. */
export async function fetchOrderInvoiceUrl(
  orderId: string,
  options: Options & { generate?: boolean },
): Promise<string | null> {
  const polar = getPolar('invoices')
  if (options.generate !== false) await generateInvoice(polar, orderId, options)
  return readInvoiceUrl(polar, orderId, options)
}

/** The billing page's later lookup: read, else generate (order.paid's POST may be lost) and read again. */
export async function lookUpOrderInvoiceUrl(orderId: string, options: Options) {
  return (
    (await readInvoiceUrl(getPolar('invoices'), orderId, options)) ||
    fetchOrderInvoiceUrl(orderId, options)
  )
}
