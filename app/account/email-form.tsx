import { FormMessage, SubmitButton, TextField } from '~/components/forms'
import type { SettingsFormProps } from '~/lib/forms/form-reply'
import { useValidatedForm } from '~/lib/forms/form-validation'

import { EMAIL_CHANGES_ONCE } from './limits'
import { OwnerProofForm } from './owner-proof'

/** The change happens when both links (to the current and the new address) are opened. */
export function EmailForm({
  email,
  pending,
  lastResult,
  message,
  constraint,
  hasPassword,
}: {
  email: string
  pending: { email: string; opened: { current: boolean; new: boolean } } | null
  hasPassword: boolean
} & SettingsFormProps) {
  const [form, fields] = useValidatedForm({ id: 'change-email', lastResult, constraint }, () =>
    import('./schemas').then((schemas) => schemas.ChangeEmailSchema),
  )
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
      {pending && !message ? (
        <FormMessage tone="info">
          {EMAIL_CHANGES_ONCE} We sent one to each address:
          <ul className="mt-1">
            {[
              [email, pending.opened.current],
              [pending.email, pending.opened.new],
            ].map(([address, done]) => (
              <li key={String(address)}>
                {done ? '✓' : '○'} {address}: {done ? 'opened' : 'not opened yet'}
              </li>
            ))}
          </ul>
        </FormMessage>
      ) : null}
      <TextField label="New email" field={fields.email} type="email" autoComplete="email" />
    </OwnerProofForm>
  )
}
