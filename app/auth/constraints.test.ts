import { describe, expect, it } from 'vitest'

import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

import * as constraints from './constraints'
import * as schemas from './schemas'

describe('the auth forms’ HTML constraints are their schemas’ rules', () => {
  it.each([
    ['sign in', constraints.signInConstraint, schemas.SignInSchema],
    ['magic link', constraints.magicLinkConstraint, schemas.MagicLinkSchema],
    ['sign up', constraints.signUpConstraint, schemas.SignUpSchema],
    ['forgot password', constraints.forgotPasswordConstraint, schemas.ForgotPasswordSchema],
    ['reset password', constraints.resetPasswordConstraint, schemas.ResetPasswordSchema],
    ['confirmation code', constraints.confirmCodeConstraint, schemas.ConfirmCodeSchema],
    ['resend', constraints.resendConfirmationConstraint, schemas.ResendConfirmationSchema],
  ])('%s', (_, declared, schema) => {
    expect(declared).toEqual(getSchemaConstraint(schema))
  })

  it('sign up asks for 8 to 72 characters and an email of at most 254', () => {
    expect(constraints.signUpConstraint).toMatchObject({
      email: { required: true, maxLength: 254 },
      password: { required: true, minLength: 8, maxLength: 72 },
    })
  })
})
