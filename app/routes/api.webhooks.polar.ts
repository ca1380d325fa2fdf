import { postOnly, webhookAction } from '~/billing/registry.server'

// POST /api/webhooks/polar: Polar's webhook receiver (Standard Webhooks, ledger).
export const action = webhookAction('polar')

export const loader = postOnly('polar')
