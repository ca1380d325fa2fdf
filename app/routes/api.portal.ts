import type { LoaderFunctionArgs } from '@remix-run/node'

import { requireApiUser } from '~/auth/api-session.server'
import { createPolarPortal } from '~/billing/polar/portal.server'
import { providerRoute } from '~/billing/registry.server'
import { forBrowsers, PORTAL_PAGES } from '~/lib/server/browser-fallback.server'
import { jsonNoStore } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'

// GET /api/portal: a Polar customer portal URL for the signed-in user.
async function openPolarPortal({ request }: LoaderFunctionArgs) {
  // A portal can cancel the subscription and change the card: the auth server confirms.
  const session = await requireApiUser(request, { confirm: true })
  if (session instanceof Response) return session
  const { user, asUser, headers } = session
  try {
    const outcome = await createPolarPortal(await readOwnSubscription(asUser), user.id)
    if (outcome.kind === 'no-subscription')
      return jsonNoStore({ error: 'No subscription found' }, { status: 500, headers })
    return jsonNoStore({ url: outcome.url }, { status: 200, headers })
  } catch (error) {
    logger.error({ err: error, user: user.id }, 'polar portal failed')
    return jsonNoStore({ error: 'Something went wrong' }, { status: 500, headers })
  }
}

// A browser following the pages' link or form gets a page, never raw JSON.
export const loader = providerRoute('polar', forBrowsers(PORTAL_PAGES, openPolarPortal))
