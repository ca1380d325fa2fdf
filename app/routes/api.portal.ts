import { portalEndpoint } from '~/billing/portal.server'

export const loader = portalEndpoint('polar', {
  noSubscription: 500,
  failed: 'Something went wrong',
})
