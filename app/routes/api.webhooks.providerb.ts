// The spec's path for the Polar webhook: the same handler as /api/webhooks/polar.
import { webhookAction } from '~/billing/registry.server'

export const action = webhookAction('polar')
export const loader = webhookAction('polar')
