import { portalEndpoint } from '~/billing/portal.server'
import { postOnly } from '~/billing/registry.server'

export const action = portalEndpoint('stripe', {
  post: true,
  noSubscription: 404,
  failed: 'Internal server error',
})

export const loader = postOnly('stripe')
