import { getFormProps } from '@conform-to/react'
import { Form } from '@remix-run/react'

import { FormReplyMessages, SubmitButton, TextField } from '~/components/forms'
import type { SettingsFormProps } from '~/lib/forms/form-reply'
import { useValidatedForm } from '~/lib/forms/form-validation'

import { DISPLAY_NAME_MAX } from './limits'

export function DisplayNameForm({
  displayName,
  lastResult,
  message,
  constraint,
}: {
  displayName: string | null
} & SettingsFormProps) {
  const [form, fields] = useValidatedForm(
    {
      id: 'display-name',
      lastResult,
      defaultValue: { displayName: displayName ?? '' },
      constraint,
    },
    () => import('./schemas').then((schemas) => schemas.DisplayNameSchema),
  )
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
