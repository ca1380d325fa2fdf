import { type FieldMetadata, type FormMetadata, getFormProps } from '@conform-to/react'
import { Form } from '@remix-run/react'
import type { ReactNode } from 'react'

import { FormReplyMessages, SubmitButton, TextField } from '~/components/forms'

/** A form whose change the owner proves first: the current password or, for an account
 * without one, the code that its "Email me a code" (before the submit button) mails. */
export function OwnerProofForm<Schema extends Record<string, unknown>>({
  form,
  proof,
  message,
  hasPassword,
  intent,
  children,
  submit,
}: {
  form: FormMetadata<Schema, string[]>
  proof: {
    currentPassword: FieldMetadata<string | undefined>
    code: FieldMetadata<string | undefined>
  }
  message: string | null
  hasPassword: boolean
  intent: string
  children: ReactNode
  submit: ReactNode
}) {
  return (
    <Form method="post" {...getFormProps(form)} className="max-w-md space-y-4">
      <FormReplyMessages message={message} form={form} />
      {children}
      {hasPassword ? (
        <TextField
          label="Current password"
          field={proof.currentPassword}
          type="password"
          autoComplete="current-password"
        />
      ) : (
        <>
          <TextField
            label="Code from the email"
            field={proof.code}
            autoComplete="one-time-code"
            hint="Ask for a code, then enter its 6 digits here."
          />
          <div className="sm:w-48">
            <SubmitButton
              name="intent"
              value={`send-code:${intent}`}
              pendingText="Sending…"
              variant="secondary"
              formNoValidate
            >
              Email me a code
            </SubmitButton>
          </div>
        </>
      )}
      <div className="sm:w-48">{submit}</div>
    </Form>
  )
}
