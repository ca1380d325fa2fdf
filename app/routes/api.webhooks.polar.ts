import { webhookRoute } from '~/billing/registry.server'

// POST /api/webhooks/polar: Polar's webhook receiver (Standard Webhooks, ledger).
export const { action, loader } = webhookRoute('polar')
