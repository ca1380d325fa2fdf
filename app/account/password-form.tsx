import { getFormProps } from '@conform-to/react'
import { Form } from '@remix-run/react'

import { FormReplyMessages, NewPasswordFields, SubmitButton, TextField } from '~/components/forms'
import type { SettingsFormProps } from '~/lib/forms/form-reply'
import { useValidatedForm } from '~/lib/forms/form-validation'

import type { ChangePasswordSchema, SetPasswordSchema } from './schemas'

/** Changes the password (sets a GitHub-only account's first); a code field once one is mailed. */
export function PasswordForm({
  mode,
  lastResult,
  message,
  needsCode,
  offerResetLink = false,
  constraint,
}: {
  /** Which schema's constraints the page passes. */
  mode: 'change' | 'set'
  needsCode: boolean
  /** The current-password check is paused: the way that still works, a reset link by mail. */
  offerResetLink?: boolean
} & SettingsFormProps) {
  const [form, fields] = useValidatedForm<typeof ChangePasswordSchema | typeof SetPasswordSchema>(
    { id: `${mode}-password`, lastResult, constraint },
    () =>
      import('./schemas').then((schemas) =>
        mode === 'change' ? schemas.ChangePasswordSchema : schemas.SetPasswordSchema,
      ),
  )
  return (
    <>
      <Form method="post" {...getFormProps(form)} className="max-w-md space-y-4">
        <FormReplyMessages message={message} form={form} />
        {mode === 'change' ? (
          <TextField
            label="Current password"
            field={fields.currentPassword}
            type="password"
            autoComplete="current-password"
          />
        ) : null}
        <NewPasswordFields password={fields.password} confirmPassword={fields.confirmPassword} />
        {needsCode ? (
          <TextField
            label="Code from the email"
            field={fields.code}
            autoComplete="one-time-code"
            hint="6 digits. Leave it empty to get a new code."
          />
        ) : null}
        <div className="sm:w-48">
          <SubmitButton
            name="intent"
            value={`${mode}-password`}
            pendingText={mode === 'change' ? 'Changing…' : 'Setting…'}
          >
            {mode === 'change' ? 'Change password' : 'Set a password'}
          </SubmitButton>
        </div>
      </Form>
      {offerResetLink ? (
        <Form method="post" className="mt-4 max-w-md sm:w-64">
          <SubmitButton
            name="intent"
            value="send-reset-link"
            pendingText="Sending link…"
            variant="secondary"
          >
            Email me a reset link
          </SubmitButton>
        </Form>
      ) : null}
    </>
  )
}
