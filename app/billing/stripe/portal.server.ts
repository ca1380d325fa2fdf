import { readAccountSummary } from '~/account/summary.server'
import { getEnv } from '~/env.server'
import type { AsUser } from '~/lib/database/database.server'

import { getStripe } from './client.server'

export type PortalOutcome = { kind: 'url'; url: string } | { kind: 'no-subscription' }

/**
 * A fresh billing portal session for the signed-in user's own Stripe customer (the id is
 * read from their row, never from input). Portal URLs are valid for a short time and
 * are never cached or reused. With `paymentMethod`, the portal opens straight on its card
 * form (`flow_data.type = payment_method_update`) and, once the card is saved, comes back
 * to the billing page.
 */
export async function createStripePortal(
  asUser: AsUser,
  userId: string,
  options: { paymentMethod?: boolean } = {},
): Promise<PortalOutcome> {
  const row = (await readAccountSummary(asUser)).subscription
  if (!row?.stripe_customer_id) return { kind: 'no-subscription' }
  const env = getEnv()
  const returnUrl = `${env.SITE_URL}/dashboard/settings/billing`
  const session = await getStripe().billingPortal.sessions.create({
    customer: row.stripe_customer_id,
    return_url: returnUrl,
    ...(env.STRIPE_PORTAL_CONFIGURATION_ID
      ? { configuration: env.STRIPE_PORTAL_CONFIGURATION_ID }
      : {}),
    ...(options.paymentMethod
      ? {
          flow_data: {
            type: 'payment_method_update',
            after_completion: { type: 'redirect', redirect: { return_url: returnUrl } },
          },
        }
      : {}),
  })
  return { kind: 'url', url: session.url }
}
