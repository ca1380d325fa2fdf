import { describe, expect, it } from 'vitest'

import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

import { displayNameConstraint } from './constraints'
import { AvatarSchema, DisplayNameSchema } from './schemas'

describe('the General forms’ HTML constraints are their schemas’ rules', () => {
  it('display name', () => {
    expect(displayNameConstraint).toEqual(getSchemaConstraint(DisplayNameSchema))
  })

  it('avatar: required by the schema, but the file input has no constraint', () => {
    // The avatar form passes no `constraint`: "no file chosen" is answered with the
    // schema's message (in the browser, or by the action with JavaScript off).
    expect(getSchemaConstraint(AvatarSchema)).toEqual({ avatar: { required: true } })
  })
})
