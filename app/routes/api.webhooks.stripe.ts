import { postOnly, webhookAction } from '~/billing/registry.server'

// POST /api/webhooks/stripe: Stripe's webhook receiver (raw body, signature, ledger).
export const action = webhookAction('stripe')

export const loader = postOnly('stripe')
