import { type LoaderFunctionArgs, redirect } from '@remix-run/node'

import { getOptionalUser } from '~/auth/session.server'
import {
  createPolarCheckout,
  parseCheckoutQuery,
  PolarCustomerConflict,
} from '~/billing/polar/checkout.server'
import { providerCallRefusal, providerRoute } from '~/billing/registry.server'
import {
  ALREADY_SUBSCRIBED,
  CHECKOUT_PAGES,
  forBrowsers,
} from '~/lib/server/browser-fallback.server'
import { jsonNoStore } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'

// Only for a signed-in user, as Stripe's checkout.
async function startPolarCheckout({ request }: LoaderFunctionArgs) {
  const { user, asUser, headers } = await getOptionalUser(request)
  const fail = (status: number, error: string) => jsonNoStore({ error }, { status, headers })
  if (!user || !asUser) return fail(401, 'Sign in to subscribe')
  const parsed = parseCheckoutQuery(new URL(request.url), user)
  if (!parsed.ok) return fail(parsed.status, parsed.error)
  const limited = await providerCallRefusal(request, user.id, headers)
  if (limited) return jsonNoStore({ error: limited.error }, limited.init)
  try {
    const location = await createPolarCheckout(asUser, parsed.value, user)
    // A 307 would carry a re-sent form on to billing: back to the site is a 303.
    return redirect(location, { status: location === ALREADY_SUBSCRIBED ? 303 : 307, headers })
  } catch (error) {
    if (error instanceof PolarCustomerConflict) {
      logger.warn({ reason: error.message, user: user.id }, 'polar checkout refused')
      return fail(
        409,
        'This email address is linked to another account at Polar. Please contact us.',
      )
    }
    logger.error({ err: error, user: user.id }, 'polar checkout failed')
    return fail(500, 'Could not start the checkout. Please try again.')
  }
}

export const loader = providerRoute('polar', forBrowsers(CHECKOUT_PAGES, startPolarCheckout))
