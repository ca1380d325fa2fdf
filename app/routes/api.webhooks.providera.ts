// The spec's path for the Stripe webhook: the same handler as /api/webhooks/stripe.
import { webhookAction } from '~/billing/registry.server'

export const action = webhookAction('stripe')
export const loader = webhookAction('stripe')
