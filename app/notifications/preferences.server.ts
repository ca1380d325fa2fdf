import type { SupabaseClient } from '@supabase/supabase-js'
import type { ProfileSummary } from '~/account/summary.server'
import { updateOwnProfile } from '~/profile/profile.server'
import type { NotificationPreferences } from './schemas'

/** The signed-in user's preferences, from their profile (`account_summary`). */
export function preferencesOf(row: ProfileSummary | null): NotificationPreferences {
  return {
    // Product updates are opt-in; the mails the user relies on are on unless turned off.
    productUpdates: row?.notify_product_updates ?? false,
    billing: row?.notify_billing ?? true,
    security: row?.notify_security ?? true,
  }
}

/**
 * Saves the signed-in user's preferences through their own client. The outbox's deliverer
 * reads them when it sends each mail (`claim_notifications`), so a change applies at once,
 * to mails already queued too.
 */
export function saveOwnPreferences(
  supabase: SupabaseClient,
  userId: string,
  preferences: NotificationPreferences,
) {
  return updateOwnProfile(supabase, userId, {
    notify_product_updates: preferences.productUpdates,
    notify_billing: preferences.billing,
    notify_security: preferences.security,
  })
}
