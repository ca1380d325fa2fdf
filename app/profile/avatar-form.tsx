import { getFormProps, type SubmissionResult } from '@conform-to/react'
import { Form } from '@remix-run/react'

import { Avatar } from '~/components/avatar'
import { FormMessage, SubmitButton, TextField } from '~/components/forms'
import { useValidatedForm } from '~/lib/forms/form-validation'

import { AVATAR_TYPES } from './limits'

export function AvatarForm({
  name,
  avatarUrl,
  lastResult,
  message,
}: {
  name: string
  avatarUrl: string | null
  lastResult?: SubmissionResult<string[]>
  message: string | null
}) {
  const [form, fields] = useValidatedForm({ id: 'avatar', lastResult }, () =>
    import('./schemas').then((schemas) => schemas.AvatarSchema),
  )
  return (
    <div className="space-y-4">
      {message ? <FormMessage tone="success">{message}</FormMessage> : null}
      <div className="flex items-center gap-4">
        <Avatar url={avatarUrl} name={name} size="lg" />
        {avatarUrl ? null : <p className="text-sm text-slate-700">You have no avatar yet.</p>}
      </div>
      <Form
        method="post"
        encType="multipart/form-data"
        {...getFormProps(form)}
        className="max-w-md space-y-4"
      >
        <TextField
          label="New avatar"
          field={fields.avatar}
          type="file"
          accept={AVATAR_TYPES.join(',')}
          hint="PNG, JPEG, WebP or GIF, up to 2 MB."
        />
        <div className="sm:w-48">
          <SubmitButton name="intent" value="avatar" pendingText="Uploading…">
            Upload avatar
          </SubmitButton>
        </div>
      </Form>
      {avatarUrl ? (
        <Form method="post" className="sm:w-48">
          <SubmitButton
            name="intent"
            value="remove-avatar"
            variant="secondary"
            pendingText="Removing…"
          >
            Remove avatar
          </SubmitButton>
        </Form>
      ) : null}
    </div>
  )
}
