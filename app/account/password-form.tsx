import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { Form } from '@remix-run/react'
import { PASSWORD_MIN_LENGTH } from '~/auth/constraints'
import { FormReplyMessages, SubmitButton, TextField } from '~/components/forms'
import { useFormValidation, REVALIDATE_ON, VALIDATE_ON } from '~/lib/form-validation'
import { changePasswordConstraint } from './constraints'

/** Changes the password; the current one is asked for first. */
export function PasswordForm({
  lastResult,
  message,
}: {
  lastResult?: SubmissionResult<string[]>
  message: string | null
}) {
  const validate = useFormValidation(() =>
    import('./schemas').then((schemas) => schemas.ChangePasswordSchema),
  )
  const [form, fields] = useForm({
    id: 'change-password',
    lastResult,
    constraint: changePasswordConstraint,
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
    onValidate: validate,
  })
  return (
    <Form method="post" {...getFormProps(form)} className="max-w-md space-y-4">
      <FormReplyMessages message={message} form={form} />
      <TextField
        label="Current password"
        field={fields.currentPassword}
        type="password"
        autoComplete="current-password"
      />
      <TextField
        label="New password"
        field={fields.password}
        type="password"
        autoComplete="new-password"
        hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
      />
      <TextField
        label="Repeat new password"
        field={fields.confirmPassword}
        type="password"
        autoComplete="new-password"
      />
      <div className="sm:w-48">
        <SubmitButton name="intent" value="change-password" pendingText="Changing…">
          Change password
        </SubmitButton>
      </div>
    </Form>
  )
}
