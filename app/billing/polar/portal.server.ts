import { getEnv } from '~/env.server'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import type { SubscriptionRow } from '~/subscriptions/types'

import type { PortalOutcome } from '../provider'
import { getPolar } from './client.server'

/**
 * A Polar customer portal session for the user's own customer: the one bound to them by
 * `external_id` (never an id from input, nor the stored id alone, which a webhook could have
 * written from a customer that is not theirs). No stored customer id, or no customer bound
 * to the user at Polar: no subscription.
 */
export async function createPolarPortal(
  row: SubscriptionRow | null,
  userId: string,
): Promise<PortalOutcome> {
  if (!row?.polar_customer_id) return { kind: 'no-subscription' }
  try {
    const session = await getPolar('portal').customerSessions.create({
      external_customer_id: userId,
      return_url: `${getEnv().SITE_URL}/dashboard/settings/billing`,
    })
    if (session.customer_id !== row.polar_customer_id)
      logger.warn(
        { user: userId },
        'polar portal: stored customer is not the one bound to the user',
      )
    return { kind: 'url', url: session.customer_portal_url }
  } catch (error) {
    const status = httpStatusOf(error)
    if (status === 404 || status === 422) {
      logger.warn({ user: userId, status }, 'polar portal: no customer bound to the user')
      return { kind: 'no-subscription' }
    }
    throw error
  }
}
