import type { ProfileSummary } from '~/account/summary.server'
import { getEnv } from '~/env.server'
import { type AsUser, database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'

import { isOwnAvatarPath } from './image-type'

export const AVATAR_BUCKET = 'profile-images'

/** A stored avatar's public URL (as storage-js builds it), only for the user's own folder. */
export function avatarUrl(userId: string, path: string | null) {
  if (!isOwnAvatarPath(path, userId)) return null
  const storage = new URL('storage/v1', `${getEnv().SUPABASE_URL.replace(/\/+$/, '')}/`).href
  return encodeURI(`${storage}/object/public/${AVATAR_BUCKET}/${path.replace(/^\/+/, '')}`)
}

export function profileView(userId: string, profile: ProfileSummary | null) {
  return {
    displayName: profile?.display_name ?? null,
    avatarUrl: avatarUrl(userId, profile?.avatar_path ?? null),
  }
}

/** Updates the user's own profile row; throws when no row was changed (RLS or no profile). */
export async function updateOwnProfile(
  asUser: AsUser,
  userId: string,
  fields: Partial<ProfileSummary>,
) {
  const { data, error } = await database({ asUser })
    .from('user_profiles')
    .update(fields)
    .eq('user_id', userId)
    .select('user_id')
  if (error) throw databaseError('profile update', error)
  if (!data || data.length !== 1) throw new Error('profile update failed: no profile row')
}
