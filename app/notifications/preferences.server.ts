import type { ProfileSummary } from '~/account/summary.server'
import type { AsUser } from '~/lib/database/database.server'
import { updateOwnProfile } from '~/profile/profile.server'

import type { NotificationPreferences } from './schemas'

export function preferencesOf(row: ProfileSummary | null): NotificationPreferences {
  return {
    // Product updates are opt-in; the mails the user relies on are on unless turned off.
    productUpdates: row?.notify_product_updates ?? false,
    billing: row?.notify_billing ?? true,
    security: row?.notify_security ?? true,
  }
}

/** Saves the user's preferences (RLS applies); read at each send, so queued mails follow them. */
export function saveOwnPreferences(
  asUser: AsUser,
  userId: string,
  preferences: NotificationPreferences,
) {
  return updateOwnProfile(asUser, userId, {
    notify_product_updates: preferences.productUpdates,
    notify_billing: preferences.billing,
    notify_security: preferences.security,
  })
}
