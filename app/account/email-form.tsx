import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { FormMessage, SubmitButton, TextField } from '~/components/forms'
import { ChangeEmailSchema } from './schemas'

/** Starts an email change; the change happens when the confirmation link is opened. */
export function EmailForm({
  email,
  pendingEmail,
  lastResult,
  message,
}: {
  email: string
  pendingEmail: string | null
  lastResult?: SubmissionResult<string[]>
  message: string | null
}) {
  const [form, fields] = useForm({
    id: 'change-email',
    lastResult,
    constraint: getZodConstraint(ChangeEmailSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ChangeEmailSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="max-w-md space-y-4">
      {message ? <FormMessage tone="success">{message}</FormMessage> : null}
      <p className="text-sm text-slate-700">
        Current email: <strong>{email}</strong>
      </p>
      {pendingEmail ? (
        <FormMessage tone="info">
          Waiting for you to confirm <strong>{pendingEmail}</strong>. Open the link we emailed.
        </FormMessage>
      ) : null}
      <TextField label="New email" field={fields.email} type="email" autoComplete="email" />
      <div className="sm:w-48">
        <SubmitButton name="intent" value="change-email" pendingText="Sending link…">
          Change email
        </SubmitButton>
      </div>
    </Form>
  )
}
