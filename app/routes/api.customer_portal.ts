import type { ActionFunctionArgs } from '@remix-run/node'

import { refuseApiPost, requireApiUser } from '~/auth/api-session.server'
import { providerRoute } from '~/billing/registry.server'
import { createStripePortal } from '~/billing/stripe/portal.server'
import { forBrowsers, PORTAL_PAGES } from '~/lib/server/browser-fallback.server'
import { jsonNoStore, methodNotAllowed } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'

// POST /api/customer_portal: a fresh Stripe billing portal URL for the signed-in user.
async function openStripePortal({ request }: ActionFunctionArgs) {
  const refused = refuseApiPost(request)
  if (refused) return refused
  // A portal can cancel the subscription and change the card: the auth server confirms.
  const session = await requireApiUser(request, { confirm: true })
  if (session instanceof Response) return session
  const { user, asUser, headers } = session
  try {
    const outcome = await createStripePortal(await readOwnSubscription(asUser))
    if (outcome.kind === 'no-subscription')
      return jsonNoStore({ error: 'No subscription found' }, { status: 404, headers })
    return jsonNoStore({ url: outcome.url }, { status: 200, headers })
  } catch (error) {
    logger.error({ err: error, user: user.id }, 'stripe portal failed')
    return jsonNoStore({ error: 'Internal server error' }, { status: 500, headers })
  }
}

// A browser following the pages' link or form gets a page, never raw JSON.
export const action = providerRoute('stripe', forBrowsers(PORTAL_PAGES, openStripePortal))

export const loader = providerRoute('stripe', () => methodNotAllowed('POST'))
