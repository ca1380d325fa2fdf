import { getFormProps, getInputProps, type SubmissionResult, useForm } from '@conform-to/react'
import { Form } from '@remix-run/react'

import { Avatar } from '~/components/avatar'
import { FieldErrors, FormMessage, SubmitButton } from '~/components/forms'
import { REVALIDATE_ON, useFormValidation, VALIDATE_ON } from '~/lib/forms/form-validation'

import { AVATAR_TYPES } from './limits'

/** The avatar upload (and removal) of the General page. */
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
  const validate = useFormValidation(() =>
    import('./schemas').then((schemas) => schemas.AvatarSchema),
  )
  const [form, fields] = useForm({
    id: 'avatar',
    lastResult,
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
    onValidate: validate,
  })
  const field = fields.avatar
  const hintId = `${field.id}-hint`
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
        <div>
          <label htmlFor={field.id} className="block text-sm font-medium text-slate-800">
            New avatar
          </label>
          <input
            {...getInputProps(field, { type: 'file' })}
            accept={AVATAR_TYPES.join(',')}
            aria-describedby={[hintId, field.errors?.length ? field.errorId : null]
              .filter(Boolean)
              .join(' ')}
            className="mt-1 block w-full text-sm text-slate-800 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-semibold"
          />
          <p id={hintId} className="mt-1 text-xs text-slate-600">
            PNG, JPEG, WebP or GIF, up to 2 MB.
          </p>
          <FieldErrors id={field.errorId} errors={field.errors} />
        </div>
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
