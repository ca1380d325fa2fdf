import { emailConstraint, newPasswordConstraint, PASSWORD_MAX_LENGTH } from '~/auth/constraints'

/**
 * What the browser needs of the Account forms' rules without loading zod (see
 * app/auth/constraints.ts); `constraints.test.ts` holds them to `schemas.ts`.
 */

/** What a person types to confirm that they mean to delete their account. */
export const DELETE_CONFIRMATION = 'DELETE'

/** The owner's proof: the current password, or the emailed code (an account without one). */
const ownerProofConstraint = {
  currentPassword: { required: false, maxLength: PASSWORD_MAX_LENGTH },
  code: { required: false },
}

export const changeEmailConstraint = { email: emailConstraint, ...ownerProofConstraint }

export const setPasswordConstraint = {
  password: newPasswordConstraint,
  confirmPassword: { required: true },
  code: { required: false },
}

export const changePasswordConstraint = {
  currentPassword: { required: true, maxLength: PASSWORD_MAX_LENGTH },
  ...setPasswordConstraint,
}

export const deleteAccountConstraint = { confirm: { required: true }, ...ownerProofConstraint }
