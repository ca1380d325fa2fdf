import { describe, expect, test } from 'vitest'

import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

import { contactSchema } from './schema'
import { VALID_CONTACT as valid } from './test-support'

// Each rule and its message, through POST /api/contact: app/routes/api.contact.test.ts.
describe('contactSchema', () => {
  test('counts characters, not UTF-16 units', () => {
    const emoji = '\u{1F600}'
    expect(contactSchema.safeParse({ ...valid, firstName: emoji }).success).toBe(false)
    expect(contactSchema.safeParse({ ...valid, firstName: emoji.repeat(2) }).success).toBe(true)
  })

  test('gives the browser its limits as HTML constraints', () => {
    expect(getSchemaConstraint(contactSchema)).toEqual({
      firstName: { required: true, minLength: 2, maxLength: 100 },
      lastName: { required: true, minLength: 2, maxLength: 100 },
      email: { required: true, maxLength: 254 },
      company: { required: true, minLength: 2, maxLength: 200 },
      message: { required: true, minLength: 10, maxLength: 5000 },
    })
  })
})
