import type { AsUser } from '~/lib/database/database.server'
import { logger } from '~/lib/server/logger.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'

import { billingProvider } from './registry.server'

/**
 * Opens the billing portal of whichever provider the user's subscription is with (its row
 * read once, here, and handed to the provider's portal). With `paymentMethod`, a portal
 * that can opens on its card form; another opens as usual (the page says where to go in it).
 */
export async function openBillingPortal(
  asUser: AsUser,
  userId: string,
  options: { paymentMethod?: boolean } = {},
): Promise<{ kind: 'url'; url: string } | { kind: 'error'; message: string }> {
  try {
    const row = await readOwnSubscription(asUser)
    const provider = billingProvider(row?.provider)
    const outcome = row && provider ? await provider.openPortal(row, userId, options) : null
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
