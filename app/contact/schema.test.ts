import { describe, expect, test } from 'vitest'

import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

import { CONTACT_LIMITS } from './limits'
import { contactSchema } from './schema'

const valid = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  company: 'Analytical Engines',
  message: 'I would like to hear more about the Pro plan.',
}

function messagesFor(input: unknown) {
  const result = contactSchema.safeParse(input)
  return result.success ? [] : result.error.issues.map((issue) => issue.message)
}

describe('contactSchema', () => {
  test('accepts a valid submission and trims it', () => {
    const result = contactSchema.safeParse({ ...valid, email: '  ada@example.com\t', extra: 1 })
    expect(result).toEqual({ success: true, data: valid })
  })

  test.each([
    ['firstName', 'A', 'First name must be at least 2 characters'],
    ['lastName', '  B  ', 'Last name must be at least 2 characters'],
    ['company', '', 'Company must be at least 2 characters'],
    ['message', ' 123456789 ', 'Message must be at least 10 characters'],
    ['email', 'ada@example', 'Enter a valid email address'],
    ['email', 'ada.example.com', 'Enter a valid email address'],
    ['email', undefined, 'Email is required'],
    ['message', 10, 'Message must be text'],
  ])('%s = %j is rejected', (field, value, message) => {
    expect(messagesFor({ ...valid, [field]: value })).toEqual([message])
  })

  test('the limits are the spec minimums', () => {
    expect(CONTACT_LIMITS.firstName.min).toBe(2)
    expect(CONTACT_LIMITS.lastName.min).toBe(2)
    expect(CONTACT_LIMITS.company.min).toBe(2)
    expect(CONTACT_LIMITS.message.min).toBe(10)
  })

  test.each(Object.entries(CONTACT_LIMITS))(
    '%s: the limits are enforced exactly',
    (field, limits) => {
      const value = (length: number) =>
        field === 'email' ? `${'a'.repeat(length - 12)}@example.com` : 'x'.repeat(length)
      const check = (length: number) =>
        contactSchema.safeParse({ ...valid, [field]: value(length) }).success
      expect(check(limits.max)).toBe(true)
      expect(check(limits.max + 1)).toBe(false)
      if ('min' in limits) {
        expect(check(limits.min)).toBe(true)
        expect(check(limits.min - 1)).toBe(false)
      }
    },
  )

  test('counts characters, not UTF-16 units', () => {
    const emoji = '\u{1F600}'
    expect(contactSchema.safeParse({ ...valid, firstName: emoji }).success).toBe(false)
    expect(contactSchema.safeParse({ ...valid, firstName: emoji.repeat(2) }).success).toBe(true)
    expect(contactSchema.safeParse({ ...valid, message: emoji.repeat(5000) }).success).toBe(true)
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
