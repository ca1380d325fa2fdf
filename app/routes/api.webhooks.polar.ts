import { postOnly, webhookAction } from '~/billing/registry.server'

export const action = webhookAction('polar')

export const loader = postOnly('polar')
