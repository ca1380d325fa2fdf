import { getFormProps, type SubmissionResult, useForm } from '@conform-to/react'
import { Form } from '@remix-run/react'

import { FormReplyMessages, SubmitButton, TextField } from '~/components/forms'
import { REVALIDATE_ON, useFormValidation, VALIDATE_ON } from '~/lib/forms/form-validation'
import type { FormConstraint } from '~/lib/forms/schema-constraint'

import { DISPLAY_NAME_MAX } from './limits'

/** The display name form of the General page. */
export function DisplayNameForm({
  displayName,
  lastResult,
  message,
  constraint,
}: {
  displayName: string | null
  lastResult?: SubmissionResult<string[]>
  message: string | null
  constraint: FormConstraint
}) {
  const validate = useFormValidation(() =>
    import('./schemas').then((schemas) => schemas.DisplayNameSchema),
  )
  const [form, fields] = useForm({
    id: 'display-name',
    lastResult,
    defaultValue: { displayName: displayName ?? '' },
    constraint,
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
    onValidate: validate,
  })
  return (
    <Form method="post" {...getFormProps(form)} className="max-w-md space-y-4">
      <FormReplyMessages message={message} form={form} />
      <TextField
        label="Display name"
        field={fields.displayName}
        autoComplete="name"
        hint={`Shown in your dashboard. Up to ${DISPLAY_NAME_MAX} characters.`}
      />
      <div className="sm:w-48">
        <SubmitButton name="intent" value="display-name" pendingText="Saving…">
          Save name
        </SubmitButton>
      </div>
    </Form>
  )
}
