import { getFormProps, type SubmissionResult, useForm } from '@conform-to/react'
import { Form } from '@remix-run/react'

import { FormMessage, SubmitButton, TextField } from '~/components/forms'
import { REVALIDATE_ON, useFormValidation, VALIDATE_ON } from '~/lib/forms/form-validation'
import type { FormConstraint } from '~/lib/forms/schema-constraint'

import { DELETE_CONFIRMATION } from './limits'

/** Deletes the account after the person types the confirmation word. */
export function DeleteAccountForm({
  hasLiveSubscription,
  lastResult,
  constraint,
}: {
  hasLiveSubscription: boolean
  lastResult?: SubmissionResult<string[]>
  constraint: FormConstraint
}) {
  const validate = useFormValidation(() =>
    import('./schemas').then((schemas) => schemas.DeleteAccountSchema),
  )
  const [form, fields] = useForm({
    id: 'delete-account',
    lastResult,
    constraint,
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
    onValidate: validate,
  })
  return (
    <Form method="post" {...getFormProps(form)} className="max-w-md space-y-4">
      {form.errors?.length ? (
        <FormMessage tone="error" id={form.errorId}>
          {form.errors.join(' ')}
        </FormMessage>
      ) : null}
      <p className="text-sm text-slate-700">
        This removes your profile, avatar, subscription record and payment history for good.
        {hasLiveSubscription
          ? ' Your subscription will be canceled immediately at the payment provider, without a refund for the rest of the period.'
          : null}
      </p>
      <TextField
        label={`Type ${DELETE_CONFIRMATION} to confirm`}
        field={fields.confirm}
        autoComplete="off"
      />
      <div className="sm:w-48">
        <SubmitButton name="intent" value="delete-account" variant="danger" pendingText="Deleting…">
          Delete account
        </SubmitButton>
      </div>
    </Form>
  )
}
