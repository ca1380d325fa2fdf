import type { LoaderFunctionArgs } from '@remix-run/node'
import { getOptionalUser } from '~/auth/session.server'
import { createPolarCheckout, parseCheckoutQuery } from '~/billing/polar/checkout.server'
import { PolarCustomerConflict } from '~/billing/polar/customer.server'
import { logger } from '~/lib/logger.server'
import { jsonNoStore } from '~/lib/http.server'
import { CHECKOUT_PAGES, forBrowsers } from '~/lib/browser-fallback.server'

// GET /api/checkout: start a Polar checkout; 307 to Polar's hosted checkout page.
async function startPolarCheckout({ request }: LoaderFunctionArgs) {
  const { user, supabase, headers } = await getOptionalUser(request)
  const parsed = parseCheckoutQuery(new URL(request.url), user)
  if (!parsed.ok) return jsonNoStore({ error: parsed.error }, { status: parsed.status, headers })
  try {
    const outcome = await createPolarCheckout(supabase, parsed.value, user)
    headers.set(
      'Location',
      outcome.kind === 'redirect'
        ? outcome.url
        : '/dashboard/settings/billing?notice=already-subscribed',
    )
    headers.set('Cache-Control', 'no-store')
    return new Response(null, { status: 307, headers })
  } catch (error) {
    if (error instanceof PolarCustomerConflict) {
      logger.warn('polar checkout refused', { reason: error.message, user: user?.id })
      return jsonNoStore(
        { error: 'This email address is linked to another account at Polar. Please contact us.' },
        { status: 409, headers },
      )
    }
    logger.error('polar checkout failed', { error: String(error), user: user?.id })
    return jsonNoStore(
      { error: 'Could not start the checkout. Please try again.' },
      { status: 500, headers },
    )
  }
}

// A browser following the pages' link or form gets a page, never raw JSON.
export const loader = forBrowsers(CHECKOUT_PAGES, startPolarCheckout)
