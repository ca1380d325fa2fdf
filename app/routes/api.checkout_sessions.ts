import type { ActionFunctionArgs } from '@remix-run/node'
import { getOptionalUser } from '~/auth/session.server'
import { createStripeCheckout, isPlanPrice } from '~/billing/stripe/checkout.server'
import { stripeErrorMessage } from '~/billing/stripe/client.server'
import { logger } from '~/lib/logger.server'
import { jsonNoStore, methodNotAllowed } from '~/lib/http.server'

// POST /api/checkout_sessions: start a Stripe Checkout for a plan price; 303 to Stripe.
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const { user, supabase, headers } = await getOptionalUser(request)
  if (!user) return jsonNoStore({ error: 'Authentication required' }, { status: 401, headers })

  const form = await request.formData().catch(() => null)
  const priceId = form?.get('price_id')
  if (
    typeof priceId !== 'string' ||
    priceId.trim() === '' ||
    priceId === 'undefined' ||
    !isPlanPrice(priceId.trim())
  ) {
    return jsonNoStore({ error: 'Valid price ID is required' }, { status: 400, headers })
  }
  try {
    const outcome = await createStripeCheckout(supabase, user, priceId.trim())
    const location =
      outcome.kind === 'redirect'
        ? outcome.url
        : '/dashboard/settings/billing?notice=already-subscribed'
    headers.set('Location', location)
    headers.set('Cache-Control', 'no-store')
    return new Response(null, { status: 303, headers })
  } catch (error) {
    logger.error('stripe checkout failed', { error: String(error), user: user.id })
    return jsonNoStore({ error: stripeErrorMessage(error) }, { status: 500, headers })
  }
}

export function loader() {
  return methodNotAllowed('POST')
}
