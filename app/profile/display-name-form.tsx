import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { FormMessage, SubmitButton, TextField } from '~/components/forms'
import { DISPLAY_NAME_MAX, DisplayNameSchema } from './schemas'

/** The display name form of the General page. */
export function DisplayNameForm({
  displayName,
  lastResult,
  message,
}: {
  displayName: string | null
  lastResult?: SubmissionResult<string[]>
  message: string | null
}) {
  const [form, fields] = useForm({
    id: 'display-name',
    lastResult,
    defaultValue: { displayName: displayName ?? '' },
    constraint: getZodConstraint(DisplayNameSchema),
    shouldValidate: 'onBlur',
    shouldRevalidate: 'onInput',
    onValidate: ({ formData }) => parseWithZod(formData, { schema: DisplayNameSchema }),
  })
  return (
    <Form method="post" {...getFormProps(form)} className="max-w-md space-y-4">
      {message ? <FormMessage tone="success">{message}</FormMessage> : null}
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
