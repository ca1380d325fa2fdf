import type { LoaderFunctionArgs } from '@remix-run/node'
import { getOptionalUser } from '~/auth/session.server'
import { createPolarCheckout, parseCheckoutQuery } from '~/billing/polar/checkout.server'
import { logger } from '~/lib/logger.server'
import { jsonNoStore } from '~/lib/http.server'
import { secureResource } from '~/lib/security-headers.server'
import { CHECKOUT_PAGES, forBrowsers } from '~/lib/browser-fallback.server'

// GET /api/checkout: start a Polar checkout; 307 to Polar's hosted checkout page.
async function startPolarCheckout({ request }: LoaderFunctionArgs) {
  const { user, headers } = await getOptionalUser(request)
  const parsed = parseCheckoutQuery(new URL(request.url), user)
  if (!parsed.ok) return jsonNoStore({ error: parsed.error }, { status: parsed.status, headers })
  try {
    const url = await createPolarCheckout(parsed.value, user)
    headers.set('Location', url)
    headers.set('Cache-Control', 'no-store')
    return new Response(null, { status: 307, headers })
  } catch (error) {
    logger.error('polar checkout failed', { error: String(error), user: user?.id })
    return jsonNoStore(
      { error: 'Could not start the checkout. Please try again.' },
      { status: 500, headers },
    )
  }
}

// A browser following the pages' link or form gets a page, never raw JSON.
export const loader = secureResource(forBrowsers(CHECKOUT_PAGES, startPolarCheckout))
