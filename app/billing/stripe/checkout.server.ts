import Stripe from 'stripe'

import type { SessionUser } from '~/auth/session.server'
import { getEnv } from '~/env.server'
import type { AsUser } from '~/lib/database/database.server'
import { ALREADY_SUBSCRIBED } from '~/lib/server/browser-fallback.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'
import { isLiveStatus } from '~/subscriptions/status'

import { getStripe } from './client.server'

/** The hosted Checkout of a plan price for the user's one customer, one payable (docs/stripe.md). */
export async function createStripeCheckout(
  asUser: AsUser,
  user: SessionUser,
  priceId: string,
): Promise<string> {
  const existing = await readOwnSubscription(asUser)
  if (isLiveStatus(existing?.status)) return ALREADY_SUBSCRIBED
  const env = getEnv()
  const stripe = getStripe()
  const metadata = { user_id: user.id, user_email: user.email ?? '' }
  // The key hands a retry or a second tab the same customer.
  const customer =
    existing?.stripe_customer_id ??
    (
      await stripe.customers.create(
        { email: user.email, metadata: { user_id: user.id } },
        { idempotencyKey: `customer:${user.id}:${user.email ?? ''}` },
      )
    ).id
  // An open session of this price with an hour or more to live is answered again: none is made.
  const reusable = (session: Stripe.Checkout.Session) =>
    session.line_items?.data[0]?.price?.id === priceId &&
    session.expires_at > Date.now() / 1000 + 3600
  const earlier = await openSessions(customer)
  let [open, answer] = [earlier, earlier.find(reusable)]
  if (!answer) {
    const created = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: priceId, quantity: 1 }],
      success_url: `${env.SITE_URL}/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${env.SITE_URL}/pricing?canceled=true`,
      automatic_tax: { enabled: env.STRIPE_AUTOMATIC_TAX },
      allow_promotion_codes: true,
      client_reference_id: user.id,
      metadata,
      subscription_data: { metadata },
      customer,
      customer_update: { address: 'auto', name: 'auto' },
    })
    // Two requests for this price made together agree on the newest; another price's is never it.
    open = await openSessions(customer)
    answer = open.find(reusable) ?? created
  }
  // At most one payable session: those open before this request are expired, and of those
  // made meanwhile, the ones older than the answer (a newer one's request expires this one).
  const older = (session: Stripe.Checkout.Session) =>
    earlier.some(({ id }) => id === session.id) || newestFirst(session, answer) > 0
  for (const session of open.filter((session) => session.id !== answer.id && older(session)))
    // Another request may have expired it first (400): done.
    await stripe.checkout.sessions.expire(session.id).catch((error: unknown) => {
      if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error
    })
  if (!answer.url) throw new Error('Stripe returned a checkout session without a URL')
  return answer.url
}

/** Newest first, ties by id: concurrent requests order a customer's sessions alike. */
const newestFirst = (a: Stripe.Checkout.Session, b: Stripe.Checkout.Session) =>
  b.created - a.created || (a.id < b.id ? 1 : -1)

/** The customer's open sessions, newest first, with their line items (the price). */
async function openSessions(customer: string) {
  const params = { customer, status: 'open' as const, limit: 100, expand: ['data.line_items'] }
  return (await getStripe().checkout.sessions.list(params)).data.sort(newestFirst)
}
