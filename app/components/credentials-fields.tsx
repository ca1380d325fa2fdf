import type { FieldMetadata } from '@conform-to/react'

import { FieldErrors, HoneypotField, TextField } from './forms'

/** The fields of the sign-in and sign-up forms, with the form's own errors. */
export function CredentialsFields({
  fields,
  form,
  redirectTo,
  password,
  autoFocusEmail,
}: {
  fields: {
    email: FieldMetadata<string | undefined>
    password: FieldMetadata<string | undefined>
  }
  form: { errorId: string; errors?: string[] }
  redirectTo: string
  password: { autoComplete: 'current-password' | 'new-password'; hint?: string }
  autoFocusEmail?: boolean
}) {
  return (
    <>
      <HoneypotField />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <TextField
        label="Email"
        field={fields.email}
        type="email"
        autoComplete="email"
        autoFocus={autoFocusEmail}
      />
      <TextField
        label="Password"
        field={fields.password}
        type="password"
        autoComplete={password.autoComplete}
        hint={password.hint}
      />
      <FieldErrors id={form.errorId} errors={form.errors} />
    </>
  )
}
