import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import {
  type ClientRateLimit,
  hitClientRateLimit,
  type RateLimitResult,
} from '~/lib/server/rate-limit.server'

import { billingProviders } from './registry.server'

/**
 * What the success page can say: the provider's answer (`complete`, `open`, `failed`),
 * `confirming` when it could not be asked, or `missing` when the address names no checkout.
 */
export type CheckoutStatus = 'complete' | 'open' | 'failed' | 'confirming' | 'missing'

/**
 * Provider lookups of the success page per client: a buyer's page makes 13 per checkout
 * (success-recheck.ts); a reload loop or made-up ids would spend the provider API budget.
 */
export const CHECKOUT_LOOKUP_RATE_LIMIT: ClientRateLimit = {
  client: { limit: 60, windowMs: 10 * 60_000 },
  shared: { limit: 600, windowMs: 10 * 60_000 },
}

/** Each provider reads its own query parameter of the success URL (e.g. `session_id`). */
function namedCheckout(params: URLSearchParams) {
  for (const provider of billingProviders()) {
    const id = params.get(provider.checkout.param)
    if (id && provider.checkout.pattern.test(id)) return { checkout: provider.checkout, id }
  }
  return null
}

/** Counts a success page view that will ask a provider; null when it asks none. */
export async function hitCheckoutLookupLimit(
  request: Request,
  params: URLSearchParams,
): Promise<RateLimitResult | null> {
  if (!namedCheckout(params)) return null
  return hitClientRateLimit(request, 'checkout-lookup', CHECKOUT_LOOKUP_RATE_LIMIT)
}

/**
 * Only the provider's answer may say "not paid": a checkout it does not know (404) is
 * `missing`, any other failure (5xx, 429, timeout, network) is `confirming`.
 */
export async function lookupCheckoutStatus(params: URLSearchParams): Promise<CheckoutStatus> {
  const named = namedCheckout(params)
  if (!named) return 'missing'
  try {
    return await named.checkout.status(named.id)
  } catch (error) {
    const status = httpStatusOf(error)
    if (status === 404 || status === 422) return 'missing'
    logger.warn({ err: error, status }, 'success page: checkout lookup failed')
    return 'confirming'
  }
}

/**
 * What a checkout the provider reports as complete was for, only for the signed-in user it was
 * made for (its `user_id` metadata); null for anyone else, as when the provider cannot be asked.
 */
export async function summarizeCheckout(
  params: URLSearchParams,
  viewer: { id: string; email: string } | null,
) {
  const named = namedCheckout(params)
  if (!named || !viewer) return null
  try {
    const { plan, amount, userId } = await named.checkout.summary(named.id)
    if (userId !== viewer.id) return null
    return { plan, amount, receiptTo: viewer.email || null }
  } catch (error) {
    logger.warn({ err: error }, 'success page: checkout summary unavailable')
  }
  return null
}
