import { getPolarCheckoutStatus } from '~/billing/polar/checkout.server'
import { getStripeCheckoutStatus } from '~/billing/stripe/checkout.server'
import { httpStatusOf } from '~/lib/http.server'
import { logger } from '~/lib/logger.server'

/**
 * What the success page can say about a checkout: the provider's own answer (`complete`,
 * `open`, `failed`), `confirming` when the provider could not be asked (a payment may well
 * have gone through), or `missing` when the address names no checkout at all.
 */
export type CheckoutStatus = 'complete' | 'open' | 'failed' | 'confirming' | 'missing'

const STRIPE_SESSION_ID = /^cs_[A-Za-z0-9_]{1,200}$/
const POLAR_CHECKOUT_ID = /^[A-Za-z0-9_-]{1,100}$/

/**
 * Looks up the checkout named by the success URL's `session_id` (Stripe) or `checkout_id`
 * (Polar). Only the provider's answer may say "not paid": a checkout it does not know
 * (404) is `failed`, any other failure (5xx, 429, timeout, network) is `confirming`.
 */
export async function lookupCheckoutStatus(params: URLSearchParams): Promise<CheckoutStatus> {
  const sessionId = params.get('session_id')
  const checkoutId = params.get('checkout_id')
  const lookup =
    sessionId && STRIPE_SESSION_ID.test(sessionId)
      ? () => getStripeCheckoutStatus(sessionId)
      : checkoutId && POLAR_CHECKOUT_ID.test(checkoutId)
        ? () => getPolarCheckoutStatus(checkoutId)
        : null
  if (!lookup) return 'missing'
  try {
    return await lookup()
  } catch (error) {
    const status = httpStatusOf(error)
    if (status === 404 || status === 422) return 'failed'
    logger.warn('success page: checkout lookup failed', { error: String(error), status })
    return 'confirming'
  }
}
