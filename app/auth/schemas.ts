import { z } from 'zod'

/** Form schemas of the auth pages, shared by the browser (conform) and the actions. */

/** An email field: trimmed, lower-cased, at most 254 characters, a valid address. */
export function emailField(requiredMessage = 'Enter your email address') {
  return z
    .string({ error: requiredMessage })
    .trim()
    .toLowerCase()
    .max(254, 'That email address is too long')
    .pipe(z.email({ error: 'Enter a valid email address, like name@example.com' }))
}

const email = emailField()

export const PASSWORD_MIN_LENGTH = 8

/** A new password: the one rule for sign-up, password reset and password change. */
export function newPasswordField(requiredMessage = 'Choose a password') {
  return z
    .string({ error: requiredMessage })
    .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(72, 'Use at most 72 characters')
}

const newPassword = newPasswordField()

const redirectTo = z.string().max(512).optional()

export const SignInSchema = z.object({
  email,
  password: z.string({ error: 'Enter your password' }).max(72),
  redirectTo,
})

export const MagicLinkSchema = z.object({ email, redirectTo })

export const SignUpSchema = z.object({
  email,
  password: newPassword,
  redirectTo,
})

export const ForgotPasswordSchema = z.object({ email })

export const ResetPasswordSchema = z
  .object({
    password: newPassword,
    confirmPassword: z.string({ error: 'Repeat the new password' }),
  })
  .refine((value) => value.password === value.confirmPassword, {
    message: 'The passwords do not match',
    path: ['confirmPassword'],
  })
