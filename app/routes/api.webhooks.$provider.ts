import { webhookAction } from '~/billing/registry.server'

/** Each provider's webhook, `/api/webhooks/<id>`: 404 while that provider does not run. */
export const action = webhookAction()
export const loader = webhookAction()
