import type { SupabaseClient } from '@supabase/supabase-js'
import { getSupabaseAdmin } from '~/lib/supabase-admin.server'
import { getOwnProfileRow, updateOwnProfile } from '~/profile/profile.server'
import { PREFERENCE_COLUMNS, type NotificationKind } from './kinds'
import type { NotificationPreferences } from './schemas'
import { databaseError } from '~/lib/database-availability.server'

/** The signed-in user's preferences, read through their own client (RLS applies). */
export async function getOwnPreferences(
  supabase: SupabaseClient,
  userId: string,
): Promise<NotificationPreferences> {
  const row = await getOwnProfileRow(supabase, userId)
  return {
    productUpdates: row?.notify_product_updates ?? true,
    billing: row?.notify_billing ?? true,
    security: row?.notify_security ?? true,
  }
}

/** Saves the signed-in user's preferences through their own client. */
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

/**
 * Whether the product may send this user an email of this kind. Mail paths run without the
 * user's session (webhooks, jobs), so this reads with the service role. No profile (a
 * deleted user) means no mail. Emails the user asked for themselves (confirmation links,
 * password reset) are not gated by preferences and never call this.
 */
export async function shouldSendEmail(userId: string, kind: NotificationKind): Promise<boolean> {
  const column = PREFERENCE_COLUMNS[kind]
  const { data, error } = await getSupabaseAdmin()
    .from('user_profiles')
    .select(column)
    .eq('user_id', userId)
    .maybeSingle<Record<typeof column, boolean>>()
  if (error) throw databaseError('notification preference read', error)
  return data?.[column] === true
}
