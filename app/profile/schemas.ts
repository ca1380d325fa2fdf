import { z } from 'zod'

/** Form schemas of the General settings page, shared by the browser (conform) and the action. */

export const DISPLAY_NAME_MAX = 80
/** The bucket's own limit (supabase/migrations); checked here first for a clear message. */
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const
export type AvatarType = (typeof AVATAR_TYPES)[number]

export const DisplayNameSchema = z.object({
  displayName: z
    .string({ error: 'Enter the name to show' })
    .trim()
    .min(1, 'Enter the name to show')
    .max(DISPLAY_NAME_MAX, `Use at most ${DISPLAY_NAME_MAX} characters`),
})

/** The upload as the browser declares it; the server also checks the bytes (image-type.ts). */
export const AvatarSchema = z.object({
  avatar: z
    .instanceof(File, { message: 'Choose an image to upload' })
    .refine((file) => file.size > 0, { message: 'Choose an image to upload', abort: true })
    .refine((file) => file.size <= AVATAR_MAX_BYTES, {
      message: 'The image must be 2 MB or smaller',
      abort: true,
    })
    .refine(
      (file) => (AVATAR_TYPES as readonly string[]).includes(file.type),
      'Upload a PNG, JPEG, WebP or GIF image',
    ),
})
