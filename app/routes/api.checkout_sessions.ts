import { type ActionFunctionArgs, redirect } from '@remix-run/node'

import { refuseApiPost, requireApiUser } from '~/auth/api-session.server'
import { planById } from '~/billing/plans.server'
import { postOnly, providerCallRefusal, providerRoute } from '~/billing/registry.server'
import { createStripeCheckout } from '~/billing/stripe/checkout.server'
import { stripeErrorMessage } from '~/billing/stripe/client.server'
import { CHECKOUT_PAGES, forBrowsers } from '~/lib/server/browser-fallback.server'
import { FORM_MAX_BYTES, jsonNoStore, readPayload } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'

async function startStripeCheckout({ request }: ActionFunctionArgs) {
  const refused = refuseApiPost(request)
  if (refused) return refused
  const session = await requireApiUser(request, { message: 'Authentication required' })
  if (session instanceof Response) return session
  const { user, asUser, headers } = session

  const payload = await readPayload(request, FORM_MAX_BYTES)
  if (payload.kind === 'too-large')
    return jsonNoStore(
      { error: `Request body must be at most ${FORM_MAX_BYTES} bytes` },
      { status: 413, headers },
    )
  const priceId = payload.kind === 'form' ? payload.value.get('price_id') : null
  // Missing, empty or the text "undefined" included: none is a plan's price (price_…).
  if (typeof priceId !== 'string' || !planById('stripe', priceId.trim()))
    return jsonNoStore({ error: 'Valid price ID is required' }, { status: 400, headers })
  const limited = await providerCallRefusal(request, user.id, headers)
  if (limited) return jsonNoStore({ error: limited.error }, limited.init)
  try {
    const location = await createStripeCheckout(asUser, user, priceId.trim())
    return redirect(location, { status: 303, headers })
  } catch (error) {
    logger.error({ err: error, user: user.id }, 'stripe checkout failed')
    if ((error as { code?: unknown })?.code === 'stripe_tax_inactive')
      logger.error(
        'Stripe refuses automatic tax until Stripe Tax is set up on the account: set it up (docs/going-live.md, "Stripe") or unset STRIPE_AUTOMATIC_TAX',
      )
    return jsonNoStore({ error: stripeErrorMessage(error) }, { status: 500, headers })
  }
}

export const action = providerRoute('stripe', forBrowsers(CHECKOUT_PAGES, startStripeCheckout))

export const loader = postOnly('stripe')
