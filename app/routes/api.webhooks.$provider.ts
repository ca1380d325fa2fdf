import type { ActionFunctionArgs } from '@remix-run/node'

import { webhookAction } from '~/billing/registry.server'

/** Each provider's webhook, `/api/webhooks/<id>`: 404 while that provider does not run. */
export const action = ({ params, request }: ActionFunctionArgs) =>
  webhookAction(params.provider!)({ request })
export const loader = action
