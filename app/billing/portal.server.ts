import { readAccountSummary } from '~/account/summary.server'
import type { AsUser } from '~/lib/database/database.server'
import { logger } from '~/lib/server/logger.server'

import { createPolarPortal } from './polar/portal.server'
import { createStripePortal } from './stripe/portal.server'

export type ManageBillingOutcome = { kind: 'url'; url: string } | { kind: 'error'; message: string }

/**
 * Opens the billing portal of whichever provider the user's subscription is with. With
 * `paymentMethod`, Stripe's portal opens on its card form; Polar's portal has no such deep
 * link, so it opens as usual (the page says where to go in it).
 */
export async function openBillingPortal(
  asUser: AsUser,
  userId: string,
  options: { paymentMethod?: boolean } = {},
): Promise<ManageBillingOutcome> {
  try {
    const row = (await readAccountSummary(asUser)).subscription
    const outcome =
      row?.provider === 'stripe'
        ? await createStripePortal(asUser, userId, options)
        : row?.provider === 'polar'
          ? await createPolarPortal(asUser, userId)
          : null
    if (outcome?.kind === 'url') return outcome
    return {
      kind: 'error',
      message: 'We could not find a subscription to manage. Choose a plan on the pricing page.',
    }
  } catch (error) {
    logger.error({ err: error, user: userId }, 'billing portal failed')
    return {
      kind: 'error',
      message: 'The billing portal is not available right now. Please try again in a moment.',
    }
  }
}
