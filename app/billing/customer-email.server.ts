import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import type { SubscriptionRow } from '~/subscriptions/types'

import { billingProviders } from './registry.server'

/** A confirmed new address for the user's customers at every provider (the outbox's `customer_email`, 0052). */
export async function updateCustomerEmail(userId: string, change: Record<string, unknown>) {
  const { data: row, error } = await database()
    .from('user_subscriptions')
    .select('*')
    .eq('user_id', userId)
    .maybeSingle()
  if (error) throw databaseError('customer read', error)
  const email = { old: String(change.old_email), new: String(change.new_email) }
  for (const provider of billingProviders())
    await provider.updateCustomerEmail?.(row as SubscriptionRow | null, userId, email)
}
