import type { AsUser } from '~/lib/database/database.server'
import { logger } from '~/lib/server/logger.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'
import { isLiveStatus } from '~/subscriptions/status'
import { applyProviderAnswer } from '~/subscriptions/store.server'

import { billingProvider } from './registry.server'

/**
 * Cancels the user's own subscription at its period end (true) or resumes it (false) through
 * its provider; the answer's row change queues the outbox mail. A reason when it cannot.
 */
export async function scheduleCancel(asUser: AsUser, userId: string, cancel: boolean) {
  try {
    const row = await readOwnSubscription(asUser)
    const provider = billingProvider(row?.provider)
    const id = provider && (row as Record<string, unknown>)[`${provider.id}_subscription_id`]
    if (!row || typeof id !== 'string' || !isLiveStatus(row.status))
      return 'You do not have a subscription to change.'
    if (row.cancel_at_period_end === cancel) return null
    const fields = await provider!.scheduleCancel(id, cancel)
    await applyProviderAnswer(provider!.id, cancel ? 'cancel' : 'resume', userId, fields)
    return null
  } catch (error) {
    logger.error({ err: error, user: userId, cancel }, 'cancel at period end failed')
    return 'We could not reach the payment provider. Nothing has changed; please try again in a moment.'
  }
}
