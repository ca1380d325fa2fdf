import type { ActionFunctionArgs } from '@remix-run/node'

import { handlePolarWebhook } from '~/billing/polar/webhook.server'
import { methodNotAllowed } from '~/lib/server/http.server'

// POST /api/webhooks/polar: Polar's webhook receiver (Standard Webhooks, ledger).
export const action = async ({ request }: ActionFunctionArgs) => {
  if (request.method !== 'POST') return methodNotAllowed('POST')
  return handlePolarWebhook(request)
}

export const loader = () => methodNotAllowed('POST')
