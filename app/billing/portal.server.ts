import { readAccountSummary } from '~/account/summary.server'
import { getEnv } from '~/env.server'
import type { AsUser } from '~/lib/database/database.server'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import type { SubscriptionRow } from '~/subscriptions/types'

import { getPolar } from './polar/client.server'
import { getStripe } from './stripe/client.server'

type PortalOutcome = { kind: 'url'; url: string } | { kind: 'no-subscription' }

const billingPage = () => `${getEnv().SITE_URL}/dashboard/settings/billing`

/**
 * A fresh billing portal session for the signed-in user's own Stripe customer (the id is
 * taken from their row, read as them, never from input). Portal URLs are valid for a short time and
 * are never cached or reused. With `paymentMethod`, the portal opens straight on its card
 * form (`flow_data.type = payment_method_update`) and, once the card is saved, comes back
 * to the billing page.
 */
export async function createStripePortal(
  row: SubscriptionRow | null,
  paymentMethod = false,
): Promise<PortalOutcome> {
  if (!row?.stripe_customer_id) return { kind: 'no-subscription' }
  const configuration = getEnv().STRIPE_PORTAL_CONFIGURATION_ID
  const session = await getStripe().billingPortal.sessions.create({
    customer: row.stripe_customer_id,
    return_url: billingPage(),
    ...(configuration ? { configuration } : {}),
    ...(paymentMethod
      ? {
          flow_data: {
            type: 'payment_method_update',
            after_completion: { type: 'redirect', redirect: { return_url: billingPage() } },
          },
        }
      : {}),
  })
  return { kind: 'url', url: session.url }
}

/**
 * A Polar customer portal session for the user's own customer: the one bound to them by
 * `external_id` (never an id from input, nor the stored id alone, which a webhook could have
 * written from a customer that is not theirs). No stored customer id, or no customer bound
 * to the user at Polar: no subscription.
 */
export async function createPolarPortal(
  row: SubscriptionRow | null,
  userId: string,
): Promise<PortalOutcome> {
  if (!row?.polar_customer_id) return { kind: 'no-subscription' }
  try {
    const session = await getPolar('portal').customerSessions.create({
      external_customer_id: userId,
      return_url: billingPage(),
    })
    if (session.customer_id !== row.polar_customer_id)
      logger.warn(
        { user: userId },
        'polar portal: stored customer is not the one bound to the user',
      )
    return { kind: 'url', url: session.customer_portal_url }
  } catch (error) {
    const status = httpStatusOf(error)
    if (status === 404 || status === 422) {
      logger.warn({ user: userId, status }, 'polar portal: no customer bound to the user')
      return { kind: 'no-subscription' }
    }
    throw error
  }
}

/** The signed-in user's own subscription row, read as them (one round trip). */
export async function ownSubscription(asUser: AsUser) {
  return (await readAccountSummary(asUser)).subscription
}

/**
 * Opens the billing portal of whichever provider the user's subscription is with (its row
 * read once, here, and handed to the provider's portal). With
 * `paymentMethod`, Stripe's portal opens on its card form; Polar's portal has no such deep
 * link, so it opens as usual (the page says where to go in it).
 */
export async function openBillingPortal(
  asUser: AsUser,
  userId: string,
  options: { paymentMethod?: boolean } = {},
): Promise<{ kind: 'url'; url: string } | { kind: 'error'; message: string }> {
  try {
    const row = await ownSubscription(asUser)
    const outcome =
      row?.provider === 'stripe'
        ? await createStripePortal(row, options.paymentMethod)
        : row?.provider === 'polar'
          ? await createPolarPortal(row, userId)
          : null
    if (outcome?.kind === 'url') return outcome
    return {
      kind: 'error',
      message: 'We could not find a subscription to manage. Choose a plan on the pricing page.',
    }
  } catch (error) {
    logger.error({ err: error, user: userId }, 'billing portal failed')
    return {
      kind: 'error',
      message: 'The billing portal is not available right now. Please try again in a moment.',
    }
  }
}
