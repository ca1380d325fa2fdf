import { portalEndpoint } from '~/billing/portal.server'
import { postOnly } from '~/billing/registry.server'

// POST /api/customer_portal: a fresh Stripe billing portal URL for the signed-in user.
export const action = portalEndpoint('stripe', {
  post: true,
  noSubscription: 404,
  failed: 'Internal server error',
})

export const loader = postOnly('stripe')
