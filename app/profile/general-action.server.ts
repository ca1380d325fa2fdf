import { parseWithZod } from '@conform-to/zod/v4'
import * as z from 'zod/mini'

import { reply, UNKNOWN_FORM } from '~/lib/forms/form-reply'
import { mediaType, readFormData } from '~/lib/server/http.server'

import { type AvatarOwner, removeAvatar, replaceAvatar } from './avatar.server'
import { AVATAR_MAX_BYTES } from './limits'
import { updateOwnProfile } from './profile.server'
import { AvatarSchema, DisplayNameSchema } from './schemas'

// Room for the multipart envelope around a file at the limit; anything larger is not read.
const MAX_BODY_BYTES = AVATAR_MAX_BYTES * 4

/** Accounts with an avatar upload under way in this instance (its body is in memory): one each. */
const uploading = new Set<string>()

export async function handleGeneralSettings(
  request: Request,
  owner: AvatarOwner,
  headers: Headers,
) {
  if (mediaType(request) !== 'multipart/form-data') return generalSettings(request, owner, headers)
  if (uploading.has(owner.userId)) {
    const error = { avatar: ['Your last image is still uploading. Try again in a moment.'] }
    const result = { status: 'error' as const, error }
    return reply(result, { intent: 'avatar', message: null }, { status: 429, headers })
  }
  uploading.add(owner.userId)
  try {
    return await generalSettings(request, owner, headers)
  } finally {
    uploading.delete(owner.userId)
  }
}

async function generalSettings(request: Request, owner: AvatarOwner, headers: Headers) {
  const { asUser, userId } = owner
  const formData = await readFormData(request, { headers, maxBytes: MAX_BODY_BYTES })
  const intent = formData.get('intent')

  if (intent === 'display-name') {
    const submission = parseWithZod(formData, { schema: DisplayNameSchema })
    if (submission.status !== 'success')
      return reply(submission.reply(), { intent, message: null }, { status: 400, headers })
    await updateOwnProfile(asUser, userId, { display_name: submission.value.displayName })
    const message = 'Your name has been saved.'
    return reply(submission.reply(), { intent, message }, { headers })
  }

  if (intent === 'avatar') {
    const submission = parseWithZod(formData, { schema: AvatarSchema })
    const outcome =
      submission.status === 'success' ? await replaceAvatar(owner, submission.value.avatar) : null
    if (!outcome?.ok) {
      const fieldErrors = outcome ? { avatar: [outcome.message] } : undefined
      const result = submission.reply({ hideFields: ['avatar'], fieldErrors })
      return reply(result, { intent, message: null }, { status: 400, headers })
    }
    const message = 'Your avatar has been updated.'
    return reply(submission.reply({ resetForm: true }), { intent, message }, { headers })
  }

  if (intent === 'remove-avatar') {
    await removeAvatar(owner)
    const submission = parseWithZod(formData, { schema: z.partial(AvatarSchema) })
    const message = 'Your avatar has been removed.'
    return reply(submission.reply({ resetForm: true }), { intent, message }, { headers })
  }

  throw new Response(UNKNOWN_FORM, { status: 400, headers })
}
