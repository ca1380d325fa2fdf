// The rules the browser needs without loading zod; `constraints.test.ts` holds them to schemas.ts.

export const DISPLAY_NAME_MAX = 80
/** The bucket's own limit (supabase/migrations); checked here first for a clear message. */
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const
export type AvatarType = (typeof AVATAR_TYPES)[number]

export const displayNameConstraint = {
  displayName: { required: true, minLength: 1, maxLength: DISPLAY_NAME_MAX },
}
