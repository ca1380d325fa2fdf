import type { SessionUser } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { getEnv } from '~/env.server'
import type { AsUser } from '~/lib/database/database.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'
import { isLiveStatus } from '~/subscriptions/status'

import { getStripe } from './client.server'

export type CheckoutOutcome = { kind: 'redirect'; url: string } | { kind: 'already-subscribed' }

/** True when `priceId` is the Stripe price of one of the product's plans. */
export function isPlanPrice(priceId: string) {
  return getPlans().some((plan) => plan.stripePriceId === priceId)
}

/**
 * Creates a hosted Checkout session for a plan price (spec: one line item, quantity 1,
 * subscription mode, promotion codes, user metadata on session and subscription), with
 * automatic tax when STRIPE_AUTOMATIC_TAX is on (Stripe refuses it until Tax is set up).
 * Return URLs are always on SITE_URL, whatever Origin the request claims. Reuses the
 * user's Stripe customer when known; a user with a live subscription is not sold a second.
 */
export async function createStripeCheckout(
  asUser: AsUser,
  user: SessionUser,
  priceId: string,
): Promise<CheckoutOutcome> {
  const existing = await readOwnSubscription(asUser)
  if (isLiveStatus(existing?.status)) return { kind: 'already-subscribed' }

  const env = getEnv()
  const metadata = { user_id: user.id, user_email: user.email ?? '' }
  const customer = existing?.stripe_customer_id
  const session = await getStripe().checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price: priceId, quantity: 1 }],
    success_url: `${env.SITE_URL}/success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${env.SITE_URL}/pricing?canceled=true`,
    automatic_tax: { enabled: env.STRIPE_AUTOMATIC_TAX },
    allow_promotion_codes: true,
    client_reference_id: user.id,
    metadata,
    subscription_data: { metadata },
    ...(customer
      ? { customer, customer_update: { address: 'auto', name: 'auto' } }
      : user.email
        ? { customer_email: user.email }
        : {}),
  })
  if (!session.url) throw new Error('Stripe returned a checkout session without a URL')
  return { kind: 'redirect', url: session.url }
}
