import { getPlans, planByStripePrice } from '~/billing/plans.server'
import { getPolar } from '~/billing/polar/client.server'
import { getStripe } from '~/billing/stripe/client.server'
import { formatMoney } from '~/lib/pages/format'
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

/** What a completed checkout bought, as the success page names it. */
export interface CheckoutSummary {
  /** The plan's name ("Pro"), when the checkout is for one of ours. */
  plan: string | null
  /** "$29.00 per month": what was charged (Stripe) or the plan's price (Polar). */
  amount: string | null
  /** The address the receipt goes to. */
  receiptTo: string | null
}

type Viewer = { id: string; email: string } | null

/**
 * Reads what a checkout the provider reports as complete was for: only for the signed-in
 * user it was made for (its `user_id` metadata); anyone else with the link gets null, as
 * when the provider cannot be asked, and the page says only what the status says.
 */
export async function summarizeCheckout(
  params: URLSearchParams,
  viewer: Viewer,
): Promise<CheckoutSummary | null> {
  const sessionId = params.get('session_id')
  const checkoutId = params.get('checkout_id')
  if (!viewer) return null
  try {
    const summary = sessionId
      ? await stripeSummary(sessionId)
      : checkoutId
        ? await polarSummary(checkoutId)
        : null
    if (summary?.owner !== viewer.id) return null
    return { plan: summary.plan, amount: summary.amount, receiptTo: viewer.email || null }
  } catch (error) {
    logger.warn({ err: error }, 'success page: checkout summary unavailable')
  }
  return null
}

async function stripeSummary(sessionId: string) {
  const session = await getStripe().checkout.sessions.retrieve(sessionId, {
    expand: ['line_items'],
  })
  const price = session.line_items?.data[0]?.price
  const plan = planByStripePrice(price?.id)
  const interval = price?.recurring?.interval ?? plan?.interval
  const amount =
    session.amount_total !== null && session.currency
      ? `${formatMoney(session.amount_total, session.currency)}${interval ? ` per ${interval}` : ''}`
      : null
  return { plan: plan?.name ?? null, amount, owner: session.metadata?.user_id }
}

async function polarSummary(checkoutId: string) {
  const checkout = await getPolar('checkout').checkouts.get(checkoutId)
  const plan = getPlans().find((item) => item.polarProductId === checkout.product_id)
  return {
    plan: plan?.name ?? null,
    amount: plan ? `${formatMoney(plan.amount, plan.currency)} per ${plan.interval}` : null,
    owner: checkout.metadata.user_id,
  }
}
