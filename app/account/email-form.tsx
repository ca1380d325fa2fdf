import { type SubmissionResult, useForm } from '@conform-to/react'

import { FormMessage, SubmitButton, TextField } from '~/components/forms'
import { REVALIDATE_ON, useFormValidation, VALIDATE_ON } from '~/lib/forms/form-validation'
import type { FormConstraint } from '~/lib/forms/schema-constraint'

import { OwnerProofForm } from './owner-proof'

/**
 * Starts an email change, once the owner has proved it is them; the change happens when the
 * confirmation link is opened.
 */
export function EmailForm({
  email,
  pendingEmail,
  lastResult,
  message,
  constraint,
  hasPassword,
}: {
  email: string
  pendingEmail: string | null
  hasPassword: boolean
  lastResult?: SubmissionResult<string[]>
  message: string | null
  constraint: FormConstraint
}) {
  const validate = useFormValidation(() =>
    import('./schemas').then((schemas) => schemas.ChangeEmailSchema),
  )
  const [form, fields] = useForm({
    id: 'change-email',
    lastResult,
    constraint,
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
    onValidate: validate,
  })
  return (
    <OwnerProofForm
      form={form}
      proof={fields}
      message={message}
      hasPassword={hasPassword}
      intent="change-email"
      submit={
        <SubmitButton name="intent" value="change-email" pendingText="Sending link…">
          Change email
        </SubmitButton>
      }
    >
      <p className="text-sm text-slate-700">
        Current email: <strong>{email}</strong>
      </p>
      {pendingEmail ? (
        <FormMessage tone="info">
          Waiting for you to confirm <strong>{pendingEmail}</strong>. Open the link we emailed.
        </FormMessage>
      ) : null}
      <TextField label="New email" field={fields.email} type="email" autoComplete="email" />
    </OwnerProofForm>
  )
}
