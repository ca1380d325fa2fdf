import type { ActionFunctionArgs } from '@remix-run/node'

import { handleStripeWebhook } from '~/billing/stripe/webhook.server'
import { methodNotAllowed } from '~/lib/server/http.server'

// POST /api/webhooks/stripe: Stripe's webhook receiver (raw body, signature, ledger).
export const action = async ({ request }: ActionFunctionArgs) => {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  return handleStripeWebhook(request)
}

export const loader = () => methodNotAllowed('POST')
