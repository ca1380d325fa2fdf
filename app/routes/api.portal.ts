import { portalEndpoint } from '~/billing/portal.server'

// GET /api/portal: a Polar customer portal URL for the signed-in user.
export const loader = portalEndpoint('polar', {
  noSubscription: 500,
  failed: 'Something went wrong',
})
