import type { ActionFunctionArgs } from '@remix-run/node'
import { getOptionalUser } from '~/auth/session.server'
import { createStripePortal } from '~/billing/stripe/portal.server'
import { logger } from '~/lib/logger.server'
import { jsonNoStore, methodNotAllowed } from '~/lib/http.server'

// POST /api/customer_portal: a fresh Stripe billing portal URL for the signed-in user.
export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  const { user, supabase, headers } = await getOptionalUser(request)
  if (!user) return jsonNoStore({ error: 'Unauthorized' }, { status: 401, headers })
  try {
    const outcome = await createStripePortal(supabase, user.id)
    if (outcome.kind === 'no-subscription')
      return jsonNoStore({ error: 'No subscription found' }, { status: 404, headers })
    return jsonNoStore({ url: outcome.url }, { status: 200, headers })
  } catch (error) {
    logger.error('stripe portal failed', { error: String(error), user: user.id })
    return jsonNoStore({ error: 'Internal server error' }, { status: 500, headers })
  }
}

export function loader() {
  return methodNotAllowed('POST')
}
