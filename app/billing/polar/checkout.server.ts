import { z } from 'zod'

import type { SessionUser } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { getEnv } from '~/env.server'
import type { AsUser } from '~/lib/database/database.server'
import { ALREADY_SUBSCRIBED } from '~/lib/server/browser-fallback.server'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import { requestContext } from '~/lib/server/request-context.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'
import { isLiveStatus } from '~/subscriptions/status'

import { getPolar } from './client.server'

export type CheckoutRequest = {
  products: string[]
  metadata: Record<string, string | number | boolean>
}
export type CheckoutQueryResult =
  { ok: true; value: CheckoutRequest } | { ok: false; status: 400 | 403; error: string }

/** Checkout metadata as Polar takes it (else 422): keys of 1 to 40 characters, scalar values. */
const MetadataSchema = z.record(
  z.string().min(1).max(40),
  z.union([z.string().min(1).max(500), z.number(), z.boolean()]),
)

/** GET /api/checkout with the query `parseCheckoutQuery` reads back (docs/polar.md). */
export function polarCheckoutPath(productId: string, user: { id: string; email: string }) {
  const query = new URLSearchParams({
    products: productId,
    customerEmail: user.email,
    metadata: JSON.stringify({ user_id: user.id }),
  })
  return `/api/checkout?${query}`
}

/**
 * GET /api/checkout's query for the signed-in user. Beyond the spec: the metadata's user_id must
 * be theirs (no subscription attached to someone else's account); only the plans' products sell.
 */
export function parseCheckoutQuery(url: URL, user: SessionUser): CheckoutQueryResult {
  const refuse = (error: string, status: 400 | 403 = 400) => ({ ok: false, status, error }) as const
  const products = (url.searchParams.get('products') ?? '')
    .split(',')
    .map((product) => product.trim())
    .filter(Boolean)
  if (products.length === 0) return refuse('Missing products in query params')
  const known = new Set(getPlans().map((plan) => plan.ids.polar))
  if (products.some((product) => !known.has(product))) return refuse('Unknown product')

  let parsed: unknown
  try {
    parsed = JSON.parse(url.searchParams.get('metadata') || '{}')
  } catch {
    parsed = null
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return refuse('metadata must be a JSON object')
  const checked = MetadataSchema.safeParse(parsed)
  if (!checked.success)
    return refuse('metadata values must be non-empty strings, numbers or booleans')
  const metadata = checked.data
  if (metadata.user_id !== undefined && metadata.user_id !== user.id)
    return refuse('metadata.user_id does not match the signed-in user', 403)
  const customerEmail = url.searchParams.get('customerEmail')?.trim()
  // The user's own customer: another address would let Polar attach the purchase to its owner.
  if (customerEmail && customerEmail.toLowerCase() !== user.email.toLowerCase())
    return refuse('customerEmail must be the email address of the signed-in account')
  // The user's own address is accepted and not needed: the checkout names their customer.
  return { ok: true, value: { products, metadata: { ...metadata, user_id: user.id } } }
}

/** A user whose Polar customer cannot be bound to them (its email belongs to someone else's). */
export class PolarCustomerConflict extends Error {}

/**
 * The user's own Polar customer (`external_id` = the user's id): found, created, or the one with
 * their email bound to them if it is bound to nobody; never another user's (docs/polar.md).
 */
async function ensurePolarCustomer(user: SessionUser): Promise<string> {
  if (!user.email) throw new PolarCustomerConflict('A Polar customer needs an email address')
  const polar = getPolar('checkout')
  try {
    return (await polar.customers.getExternal(user.id)).id
  } catch (error) {
    if (httpStatusOf(error) !== 404) throw error
  }
  try {
    return (await polar.customers.create({ email: user.email, external_id: user.id })).id
  } catch (error) {
    if (httpStatusOf(error) !== 422) throw error
  }
  // The email is taken: by a customer bound to nobody (bind it), or to someone else.
  const { items } = await polar.customers.list({ email: user.email })
  const email = user.email.toLowerCase()
  const existing = items.find((customer) => customer.email?.toLowerCase() === email)
  if (!existing || (existing.external_id && existing.external_id !== user.id)) {
    logger.warn({ user: user.id }, 'polar: customer email bound to another user')
    throw new PolarCustomerConflict('The Polar customer with this email belongs to another account')
  }
  if (existing.external_id !== user.id)
    await polar.customers.update(existing.id, { external_id: user.id })
  return existing.id
}

/** A Polar hosted checkout for the user's own customer, never for a second live subscription. */
export async function createPolarCheckout(
  asUser: AsUser,
  request: CheckoutRequest,
  user: SessionUser,
): Promise<string> {
  const existing = await readOwnSubscription(asUser)
  if (isLiveStatus(existing?.status)) return ALREADY_SUBSCRIBED
  // The request's id travels to the subscription and its orders (Polar takes no header).
  const requestId = requestContext.getStore()?.requestId
  const checkout = await getPolar('checkout').checkouts.create({
    products: request.products,
    metadata: { ...request.metadata, ...(requestId && { request_id: requestId }) },
    success_url: `${getEnv().SITE_URL}/success?checkout_id={CHECKOUT_ID}`,
    customer_id: await ensurePolarCustomer(user),
  })
  return checkout.url
}
