import * as z from 'zod/mini'

import { storedText } from '~/lib/forms/stored-text'

import { AVATAR_MAX_BYTES, AVATAR_TYPES, DISPLAY_NAME_MAX } from './limits'

export const DisplayNameSchema = z.object({
  displayName: storedText({ error: 'Enter the name to show' }).check(
    z.trim(),
    z.minLength(1, 'Enter the name to show'),
    z.maxLength(DISPLAY_NAME_MAX, `Use at most ${DISPLAY_NAME_MAX} characters`),
  ),
})

/** The upload as the browser declares it; the server also checks the bytes (image-type.ts). */
export const AvatarSchema = z.object({
  avatar: z.instanceof(File, { message: 'Choose an image to upload' }).check(
    z.refine((file) => file.size > 0, { message: 'Choose an image to upload', abort: true }),
    z.refine((file) => file.size <= AVATAR_MAX_BYTES, {
      message: 'The image must be 2 MB or smaller',
      abort: true,
    }),
    z.refine(
      (file) => (AVATAR_TYPES as readonly string[]).includes(file.type),
      'Upload a PNG, JPEG, WebP or GIF image',
    ),
  ),
})
