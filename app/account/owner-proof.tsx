import type { FieldMetadata } from '@conform-to/react'
import { Form } from '@remix-run/react'

import { SubmitButton, TextField } from '~/components/forms'

/**
 * What the owner proves before a change that cannot be undone or hands the account over:
 * the current password, or (an account without one) the code "Email me a code" mails.
 */
export function OwnerProofField({
  hasPassword,
  currentPassword,
  code,
}: {
  hasPassword: boolean
  currentPassword: FieldMetadata<string | undefined>
  code: FieldMetadata<string | undefined>
}) {
  return hasPassword ? (
    <TextField
      label="Current password"
      field={currentPassword}
      type="password"
      autoComplete="current-password"
    />
  ) : (
    <TextField
      label="Code from the email"
      field={code}
      autoComplete="one-time-code"
      hint="Your account has no password: ask for a code below, then enter its 6 digits."
    />
  )
}

/** "Email me a code", for the form of `intent`, beside it (its own form: nothing to validate). */
export function EmailMeACode({ intent }: { intent: string }) {
  return (
    <Form method="post" className="mt-3 max-w-md sm:w-48">
      <SubmitButton
        name="intent"
        value={`send-code:${intent}`}
        pendingText="Sending…"
        variant="secondary"
      >
        Email me a code
      </SubmitButton>
    </Form>
  )
}
