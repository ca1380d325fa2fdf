import { describe, expect, it } from 'vitest'

import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

import * as constraints from './constraints'
import * as schemas from './schemas'

describe('the Account forms’ HTML constraints are their schemas’ rules', () => {
  it.each([
    ['change email', constraints.changeEmailConstraint, schemas.ChangeEmailSchema],
    ['change password', constraints.changePasswordConstraint, schemas.ChangePasswordSchema],
    ['set password', constraints.setPasswordConstraint, schemas.SetPasswordSchema],
    ['delete account', constraints.deleteAccountConstraint, schemas.DeleteAccountSchema],
  ])('%s', (_, declared, schema) => {
    expect(declared).toEqual(getSchemaConstraint(schema))
  })
})
