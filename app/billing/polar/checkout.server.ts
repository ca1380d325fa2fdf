import { readAccountSummary } from '~/account/summary.server'
import type { SessionUser } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { getEnv } from '~/env.server'
import type { AsUser } from '~/lib/database/database.server'
import { isLiveStatus } from '~/subscriptions/status'

import { getPolar } from './client.server'
import { ensurePolarCustomer } from './customer.server'

export type CheckoutRequest = {
  products: string[]
  metadata: Record<string, string | number | boolean>
}
export type CheckoutQueryResult =
  { ok: true; value: CheckoutRequest } | { ok: false; status: 400 | 403; error: string }

/**
 * The app's own link that starts a plan's Polar checkout for the signed-in user: GET
 * /api/checkout with the query `parseCheckoutQuery` reads back (docs/polar.md).
 */
export function polarCheckoutPath(productId: string, user: { id: string; email: string }) {
  const query = new URLSearchParams({
    products: productId,
    customerEmail: user.email,
    metadata: JSON.stringify({ user_id: user.id }),
  })
  return `/api/checkout?${query}`
}

/**
 * Validates GET /api/checkout's query for the signed-in user (the route refuses anyone
 * else). Beyond the spec: the metadata's user_id must be the signed-in user's (a stranger
 * cannot attach a subscription to someone else's account), and only the plans' products
 * can be bought.
 */
export function parseCheckoutQuery(url: URL, user: SessionUser): CheckoutQueryResult {
  const products = (url.searchParams.get('products') ?? '')
    .split(',')
    .map((product) => product.trim())
    .filter(Boolean)
  if (products.length === 0)
    return { ok: false, status: 400, error: 'Missing products in query params' }
  const known = new Set(getPlans().map((plan) => plan.polarProductId))
  if (products.some((product) => !known.has(product)))
    return { ok: false, status: 400, error: 'Unknown product' }

  let metadata: Record<string, string | number | boolean> = {}
  const rawMetadata = url.searchParams.get('metadata')
  if (rawMetadata) {
    let parsed: unknown
    try {
      parsed = JSON.parse(rawMetadata)
    } catch {
      return { ok: false, status: 400, error: 'metadata must be a JSON object' }
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { ok: false, status: 400, error: 'metadata must be a JSON object' }
    }
    for (const [key, value] of Object.entries(parsed)) {
      if (!['string', 'number', 'boolean'].includes(typeof value) || key.length > 40) {
        return {
          ok: false,
          status: 400,
          error: 'metadata values must be strings, numbers or booleans',
        }
      }
    }
    metadata = parsed as Record<string, string | number | boolean>
  }
  if (metadata.user_id !== undefined && metadata.user_id !== user.id) {
    return { ok: false, status: 403, error: 'metadata.user_id does not match the signed-in user' }
  }
  metadata = { ...metadata, user_id: user.id }
  const customerEmail = url.searchParams.get('customerEmail')?.trim() || undefined
  // A checkout is for the user's own Polar customer: another address would let Polar
  // attach the purchase to whoever owns that address.
  if (customerEmail && customerEmail.toLowerCase() !== user.email.toLowerCase()) {
    return {
      ok: false,
      status: 400,
      error: 'customerEmail must be the email address of the signed-in account',
    }
  }
  // The user's own address is accepted and not needed: the checkout names their customer.
  return { ok: true, value: { products, metadata } }
}

export type PolarCheckoutOutcome =
  { kind: 'redirect'; url: string } | { kind: 'already-subscribed' }

/**
 * Creates a Polar hosted checkout for the signed-in user and returns where to send the
 * buyer: for the user's own customer (bound by external id, see `ensurePolarCustomer`),
 * never for a second live subscription (the same rule as Stripe's).
 */
export async function createPolarCheckout(
  asUser: AsUser,
  request: CheckoutRequest,
  user: SessionUser,
): Promise<PolarCheckoutOutcome> {
  const base = {
    products: request.products,
    metadata: request.metadata,
    success_url: `${getEnv().SITE_URL}/success?checkout_id={CHECKOUT_ID}`,
  }
  const existing = (await readAccountSummary(asUser)).subscription
  if (isLiveStatus(existing?.status)) return { kind: 'already-subscribed' }
  const customerId = await ensurePolarCustomer(user)
  const checkout = await getPolar('checkout').checkouts.create({ ...base, customer_id: customerId })
  return { kind: 'redirect', url: checkout.url }
}

/** The state of a Polar checkout, as the success page shows it. */
export async function getPolarCheckoutStatus(
  checkoutId: string,
): Promise<'complete' | 'open' | 'failed'> {
  const checkout = await getPolar('checkout').checkouts.get(checkoutId)
  if (checkout.status === 'succeeded') return 'complete'
  if (checkout.status === 'open' || checkout.status === 'confirmed') return 'open'
  return 'failed'
}
