import { postOnly, webhookAction } from '~/billing/registry.server'

export const action = webhookAction('stripe')

export const loader = postOnly('stripe')
