import * as z from 'zod/mini'

import { PASSWORD_MAX_LENGTH } from '~/auth/limits'
import { emailField, mailedCodeField, newPasswordPair, passwordsMatch } from '~/auth/schemas'

import { DELETE_CONFIRMATION } from './limits'

/** Supabase's "secure password change" code (sessions older than 24 h); empty until asked for. */
const reauthenticationCode = z.optional(mailedCodeField())

const newPasswordFields = {
  ...newPasswordPair('Choose a new password'),
  code: reauthenticationCode,
}

export const ChangePasswordSchema = z
  .object({
    currentPassword: z
      .string({ error: 'Enter your current password' })
      .check(z.maxLength(PASSWORD_MAX_LENGTH)),
    ...newPasswordFields,
  })
  .check(
    passwordsMatch,
    z.refine((value) => value.password !== value.currentPassword, {
      message: 'Choose a password that is different from your current one',
      path: ['password'],
    }),
  )

/** A first password, for an account that signs in with GitHub only: no current one to ask. */
export const SetPasswordSchema = z.object(newPasswordFields).check(passwordsMatch)

// The owner's proof: the current password or the code.
const ownerProof = {
  currentPassword: z.optional(z.string().check(z.maxLength(PASSWORD_MAX_LENGTH))),
  code: reauthenticationCode,
}
// Said at the field the form shows: an account without a password is never asked for one.
const provesOwner = z.superRefine<{ currentPassword?: string; code?: string }>((value, ctx) => {
  if (value.currentPassword || value.code) return
  const missing = { code: 'custom', input: value } as const
  ctx.addIssue({ ...missing, path: ['currentPassword'], message: 'Enter your current password' })
  ctx.addIssue({ ...missing, path: ['code'], message: 'Enter the code from the email' })
})

export const ChangeEmailSchema = z
  .object({ email: emailField('Enter your new email address'), ...ownerProof })
  .check(provesOwner)

export const DeleteAccountSchema = z
  .object({
    confirm: z.string({ error: `Type ${DELETE_CONFIRMATION} to confirm` }).check(
      z.trim(),
      z.refine((value) => value === DELETE_CONFIRMATION, `Type ${DELETE_CONFIRMATION} to confirm`),
    ),
    ...ownerProof,
  })
  .check(provesOwner)
