import { logger } from '~/lib/logger.server'
import { getPolar, polarStatus } from './client.server'

/**
 * The hosted invoice URL of a paid order, or null when Polar has not generated it yet.
 * Spec: POST /v1/orders/{id}/invoice (202 starts generation; 409 means it already exists
 * on older servers or the order is not eligible on newer ones), then GET
 * /v1/orders/{id}/invoice (404 until generated). A null URL is filled in later, when
 * Polar sends order.updated with is_invoice_generated. Network or 5xx failures throw, so
 * the webhook answers 5xx and Polar retries.
 */
export async function fetchOrderInvoiceUrl(
  orderId: string,
  options: { generate?: boolean } = {},
): Promise<string | null> {
  const polar = getPolar('invoices')
  if (options.generate !== false) {
    try {
      await polar.orders.generateInvoice(orderId)
    } catch (error) {
      const status = polarStatus(error)
      if (status !== 409 && status !== 422) throw error
      if (status === 422)
        logger.warn('polar: order is missing billing details for an invoice', { order: orderId })
    }
  }
  try {
    const invoice = await polar.orders.invoice(orderId)
    return invoice.url ?? null
  } catch (error) {
    if (polarStatus(error) === 404) return null
    throw error
  }
}
