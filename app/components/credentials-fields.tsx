import type { FieldMetadata } from '@conform-to/react'

import { FieldErrors, HoneypotField, NEW_PASSWORD_HINT, TextField } from './forms'

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
  password: 'current-password' | 'new-password'
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
        autoComplete={password}
        hint={password === 'new-password' ? NEW_PASSWORD_HINT : undefined}
      />
      <FieldErrors id={form.errorId} errors={form.errors} />
    </>
  )
}
