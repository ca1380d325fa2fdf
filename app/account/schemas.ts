import { z } from 'zod'
import { emailField, newPasswordField } from '~/auth/schemas'

/** Form schemas of the Account settings page, shared by the browser (conform) and the action. */

export const ChangeEmailSchema = z.object({
  email: emailField('Enter your new email address'),
})

export const ChangePasswordSchema = z
  .object({
    currentPassword: z.string({ error: 'Enter your current password' }).max(72),
    password: newPasswordField('Choose a new password'),
    confirmPassword: z.string({ error: 'Repeat the new password' }),
  })
  .refine((value) => value.password === value.confirmPassword, {
    message: 'The passwords do not match',
    path: ['confirmPassword'],
  })
  .refine((value) => value.password !== value.currentPassword, {
    message: 'Choose a password that is different from your current one',
    path: ['password'],
  })

/** What a person types to confirm that they mean to delete their account. */
export const DELETE_CONFIRMATION = 'DELETE'

export const DeleteAccountSchema = z.object({
  confirm: z
    .string({ error: `Type ${DELETE_CONFIRMATION} to confirm` })
    .trim()
    .refine((value) => value === DELETE_CONFIRMATION, `Type ${DELETE_CONFIRMATION} to confirm`),
})
