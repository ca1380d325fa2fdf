import { getEnv } from '~/env.server'
import type { SubscriptionRow } from '~/subscriptions/types'

import type { PortalOutcome } from '../provider'
import { getStripe } from './client.server'

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
