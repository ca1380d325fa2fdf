import type { SupabaseClient } from '@supabase/supabase-js'

import { readAccountSummary } from '~/account/summary.server'
import type { AsUser } from '~/lib/database/database.server'
import { logger } from '~/lib/server/logger.server'

import { AVATAR_EXTENSIONS, isOwnAvatarPath, sniffImageType } from './image-type'
import { AVATAR_BUCKET, updateOwnProfile } from './profile.server'

/** The signed-in user whose avatar changes: their client (storage) and token (reads). */
export interface AvatarOwner {
  supabase: SupabaseClient
  asUser: AsUser
  userId: string
}

/** Stores a new avatar as the user (RLS applies), named anew so no cache shows a stale one. */
export async function replaceAvatar(
  { supabase, asUser, userId }: AvatarOwner,
  file: File,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const bytes = new Uint8Array(await file.arrayBuffer())
  const type = sniffImageType(bytes)
  if (!type) return { ok: false, message: 'Upload a PNG, JPEG, WebP or GIF image' }
  const previous = (await readAccountSummary(asUser)).profile?.avatar_path ?? null
  const path = `${userId}/avatar-${crypto.randomUUID()}.${AVATAR_EXTENSIONS[type]}`
  const bucket = supabase.storage.from(AVATAR_BUCKET)
  const upload = await bucket.upload(path, bytes, { contentType: type, cacheControl: '31536000' })
  if (upload.error) {
    logger.error({ user: userId, err: upload.error }, 'avatar upload failed')
    return { ok: false, message: 'We could not store your image. Please try again.' }
  }
  try {
    await updateOwnProfile(asUser, userId, { avatar_path: path })
  } catch (error) {
    await bucket.remove([path])
    throw error
  }
  await removeStoredAvatar(supabase, userId, previous)
  return { ok: true }
}

export async function removeAvatar({ supabase, asUser, userId }: AvatarOwner) {
  const previous = (await readAccountSummary(asUser)).profile?.avatar_path ?? null
  await updateOwnProfile(asUser, userId, { avatar_path: null })
  await removeStoredAvatar(supabase, userId, previous)
}

// A failed clean-up leaves an orphan file, not a broken profile: log it and carry on.
async function removeStoredAvatar(supabase: SupabaseClient, userId: string, path: string | null) {
  if (!isOwnAvatarPath(path, userId)) return
  const { error } = await supabase.storage.from(AVATAR_BUCKET).remove([path])
  if (error) logger.warn({ user: userId, path, err: error }, 'old avatar not removed')
}
