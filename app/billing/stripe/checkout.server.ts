import Stripe from 'stripe'

import type { SessionUser } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { getEnv } from '~/env.server'
import type { AsUser } from '~/lib/database/database.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'
import { isLiveStatus } from '~/subscriptions/status'

import type { CheckoutOutcome } from '../provider'
import { getStripe } from './client.server'

/** True when `priceId` is the Stripe price of one of the product's plans. */
export function isPlanPrice(priceId: string) {
  return getPlans().some((plan) => plan.stripePriceId === priceId)
}

/**
 * A hosted Checkout session for a plan price, as the spec describes it, for the user's one
 * customer and never a second payable one (docs/decisions/0050-one-payable-checkout.md).
 */
export async function createStripeCheckout(
  asUser: AsUser,
  user: SessionUser,
  priceId: string,
): Promise<CheckoutOutcome> {
  const existing = await readOwnSubscription(asUser)
  if (isLiveStatus(existing?.status)) return { kind: 'already-subscribed' }

  const env = getEnv()
  const stripe = getStripe()
  const metadata = { user_id: user.id, user_email: user.email ?? '' }
  // The key hands a retry or a second tab the same customer (0050).
  const customer =
    existing?.stripe_customer_id ??
    (
      await stripe.customers.create(
        { email: user.email, metadata: { user_id: user.id } },
        { idempotencyKey: `customer:${user.id}:${user.email ?? ''}` },
      )
    ).id
  const session = await stripe.checkout.sessions.create({
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
  const url = (await newestOpenSession(customer)) ?? session.url
  if (!url) throw new Error('Stripe returned a checkout session without a URL')
  return { kind: 'redirect', url }
}

/** Expires the customer's open sessions but the newest (ties by id: two tabs agree) and gives its URL. */
async function newestOpenSession(customer: string) {
  const stripe = getStripe()
  const open = await stripe.checkout.sessions.list({ customer, status: 'open', limit: 100 })
  const [newest, ...older] = open.data.sort(
    (a, b) => b.created - a.created || (a.id < b.id ? 1 : -1),
  )
  for (const session of older)
    // Another tab may have expired it first (400): done.
    await stripe.checkout.sessions.expire(session.id).catch((error: unknown) => {
      if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error
    })
  return newest?.url
}
