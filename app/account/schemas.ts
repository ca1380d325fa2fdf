import * as z from 'zod/mini'
import { PASSWORD_MAX_LENGTH } from '~/auth/constraints'
import { emailField, newPasswordField } from '~/auth/schemas'
import { DELETE_CONFIRMATION } from './constraints'

/**
 * Form schemas of the Account settings page, for the action and, loaded after the page, the
 * browser (`zod/mini`, see app/auth/schemas.ts).
 */

export const ChangeEmailSchema = z.object({
  email: emailField('Enter your new email address'),
})

export const ChangePasswordSchema = z
  .object({
    currentPassword: z
      .string({ error: 'Enter your current password' })
      .check(z.maxLength(PASSWORD_MAX_LENGTH)),
    password: newPasswordField('Choose a new password'),
    confirmPassword: z.string({ error: 'Repeat the new password' }),
  })
  .check(
    z.refine((value) => value.password === value.confirmPassword, {
      message: 'The passwords do not match',
      path: ['confirmPassword'],
    }),
    z.refine((value) => value.password !== value.currentPassword, {
      message: 'Choose a password that is different from your current one',
      path: ['password'],
    }),
  )

export const DeleteAccountSchema = z.object({
  confirm: z.string({ error: `Type ${DELETE_CONFIRMATION} to confirm` }).check(
    z.trim(),
    z.refine((value) => value === DELETE_CONFIRMATION, `Type ${DELETE_CONFIRMATION} to confirm`),
  ),
})
