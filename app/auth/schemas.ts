import * as z from 'zod/mini'

import {
  EMAIL_MAX_LENGTH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  REDIRECT_TO_MAX_LENGTH,
} from './limits'

/** Auth form schemas in `zod/mini`, small for the browser; the pages read `limits.ts` without zod. */

export function emailField(requiredMessage = 'Enter your email address') {
  return z.pipe(
    z
      .string({ error: requiredMessage })
      .check(
        z.trim(),
        z.toLowerCase(),
        z.maxLength(EMAIL_MAX_LENGTH, 'That email address is too long'),
      ),
    z.email({ error: 'Enter a valid email address, like name@example.com' }),
  )
}

const email = emailField()

/** A new password: the one rule for sign-up, password reset and password change. */
export function newPasswordField(requiredMessage = 'Choose a password') {
  return z
    .string({ error: requiredMessage })
    .check(
      z.minLength(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters`),
      z.maxLength(PASSWORD_MAX_LENGTH, `Use at most ${PASSWORD_MAX_LENGTH} characters`),
    )
}

export const newPasswordPair = (requiredMessage?: string) => ({
  password: newPasswordField(requiredMessage),
  confirmPassword: z.string({ error: 'Repeat the new password' }),
})

export const passwordsMatch = z.refine<{ password: string; confirmPassword: string }>(
  (value) => value.password === value.confirmPassword,
  { message: 'The passwords do not match', path: ['confirmPassword'] },
)

export const mailedCodeField = (requiredMessage?: string) =>
  z
    .string({ error: requiredMessage })
    .check(z.trim(), z.regex(/^[0-9]{6}$/, 'The code is the 6 digits in the email'))

const redirectTo = z.optional(z.string().check(z.maxLength(REDIRECT_TO_MAX_LENGTH)))

/** The sign-in form: one address, then the password ("Sign in") or a link (`intent=magic-link`). */
export const SignInSchema = z
  .object({
    email,
    password: z.optional(z.string().check(z.maxLength(PASSWORD_MAX_LENGTH))),
    redirectTo,
    intent: z.optional(z.string()),
  })
  .check(
    z.refine((value) => value.intent === 'magic-link' || value.password !== undefined, {
      message: 'Enter your password',
      path: ['password'],
    }),
  )

export const MagicLinkSchema = z.object({ email, redirectTo })

export const SignUpSchema = z.object({
  email,
  password: newPasswordField(),
  redirectTo,
})

export const ForgotPasswordSchema = z.object({ email })

export const ResetPasswordSchema = z.object(newPasswordPair()).check(passwordsMatch)

export const ConfirmCodeSchema = z.object({
  email,
  code: mailedCodeField('Enter the 6-digit code from the email'),
})

export const ResendConfirmationSchema = z.object({ email })
