import { webhookRoute } from '~/billing/registry.server'

// POST /api/webhooks/stripe: Stripe's webhook receiver (raw body, signature, ledger).
export const { action, loader } = webhookRoute('stripe')
