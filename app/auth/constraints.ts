/**
 * What the browser needs of the auth forms' rules without loading zod: the limits, and the
 * HTML constraint attributes of each form (`useForm({ constraint })`), which let the
 * browser check the fields itself when JavaScript is off. `schemas.ts` builds its rules
 * from the same limits; `constraints.test.ts` holds each form's constraints to its schema.
 */

export const EMAIL_MAX_LENGTH = 254
export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 72
export const REDIRECT_TO_MAX_LENGTH = 512

export const emailConstraint = { required: true, maxLength: EMAIL_MAX_LENGTH }
export const newPasswordConstraint = {
  required: true,
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
}
const redirectTo = { required: false, maxLength: REDIRECT_TO_MAX_LENGTH }

export const signInConstraint = {
  email: emailConstraint,
  password: { required: true, maxLength: PASSWORD_MAX_LENGTH },
  redirectTo,
}

export const magicLinkConstraint = { email: emailConstraint, redirectTo }

export const signUpConstraint = {
  email: emailConstraint,
  password: newPasswordConstraint,
  redirectTo,
}

export const forgotPasswordConstraint = { email: emailConstraint }

export const resetPasswordConstraint = {
  password: newPasswordConstraint,
  confirmPassword: { required: true },
}

export const confirmCodeConstraint = {
  email: emailConstraint,
  code: { required: true },
}

export const resendConfirmationConstraint = { email: emailConstraint }
