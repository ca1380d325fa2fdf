import { getPolar } from '~/billing/polar/client.server'
import { getStripe } from '~/billing/stripe/client.server'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import {
  type ClientRateLimit,
  hitClientRateLimit,
  type RateLimitResult,
} from '~/lib/server/rate-limit.server'

/**
 * What the success page can say about a checkout: the provider's own answer (`complete`,
 * `open`, `failed`), `confirming` when the provider could not be asked (a payment may well
 * have gone through), or `missing` when the address names no checkout at all.
 */
export type CheckoutStatus = 'complete' | 'open' | 'failed' | 'confirming' | 'missing'

const STRIPE_SESSION_ID = /^cs_[A-Za-z0-9_]{1,200}$/
const POLAR_CHECKOUT_ID = /^[A-Za-z0-9_-]{1,100}$/

/**
 * Provider lookups of the success page per client. A buyer's page looks once and then every
 * few seconds for about a minute (success-recheck.ts: 13 lookups per checkout); anyone
 * reloading it in a loop, or walking made-up ids, would spend the app's Stripe and Polar
 * API budget.
 */
export const CHECKOUT_LOOKUP_RATE_LIMIT: ClientRateLimit = {
  client: { limit: 60, windowMs: 10 * 60_000 },
  shared: { limit: 600, windowMs: 10 * 60_000 },
}

/**
 * The provider lookup of the checkout named by the success URL's `session_id` (Stripe) or
 * `checkout_id` (Polar), or null when it names none. Spec: complete / open / other = failed.
 */
function checkoutLookup(params: URLSearchParams) {
  const sessionId = params.get('session_id')
  const checkoutId = params.get('checkout_id')
  if (sessionId && STRIPE_SESSION_ID.test(sessionId))
    return async () => {
      const { status } = await getStripe().checkout.sessions.retrieve(sessionId)
      return status === 'complete' ? 'complete' : status === 'open' ? 'open' : 'failed'
    }
  if (checkoutId && POLAR_CHECKOUT_ID.test(checkoutId))
    return async () => {
      const { status } = await getPolar('checkout').checkouts.get(checkoutId)
      if (status === 'succeeded') return 'complete'
      return status === 'open' || status === 'confirmed' ? 'open' : 'failed'
    }
  return null
}

/**
 * Counts a success page view that will ask a provider against its client's budget; the
 * verdict, or null when the page asks no provider (nothing to count).
 */
export async function hitCheckoutLookupLimit(
  request: Request,
  params: URLSearchParams,
): Promise<RateLimitResult | null> {
  if (!checkoutLookup(params)) return null
  return hitClientRateLimit(request, 'checkout-lookup', CHECKOUT_LOOKUP_RATE_LIMIT)
}

/**
 * Looks up the checkout the success URL names. Only the provider's answer may say "not
 * paid": a checkout it does not know (404) is `failed`, any other failure (5xx, 429,
 * timeout, network) is `confirming`.
 */
export async function lookupCheckoutStatus(params: URLSearchParams): Promise<CheckoutStatus> {
  const lookup = checkoutLookup(params)
  if (!lookup) return 'missing'
  try {
    return await lookup()
  } catch (error) {
    const status = httpStatusOf(error)
    if (status === 404 || status === 422) return 'failed'
    logger.warn({ err: error, status }, 'success page: checkout lookup failed')
    return 'confirming'
  }
}
