import { describe, expect, test } from 'vitest'
import { z } from 'zod'

import { toWireIssue } from './wire-issues'

// The shapes of the contact form's own issues: app/routes/api.contact.test.ts.
function issueOf(schema: z.core.$ZodType, input: unknown) {
  const result = z.safeParse(schema, input)
  if (result.success) throw new Error('expected a failure')
  return result.error.issues[0]
}

describe('toWireIssue', () => {
  test('an exact length keeps exact: true', () => {
    const issue = issueOf(z.string().length(3, 'three'), 'a')
    expect(toWireIssue(issue)).toMatchObject({ code: 'too_small', minimum: 3, exact: true })
  })

  test('other codes pass through with a null type', () => {
    const issue = issueOf(z.enum(['a', 'b']), 'c')
    expect(toWireIssue(issue)).toMatchObject({ code: 'invalid_value', type: null, minimum: null })
  })

  test('a bigint minimum becomes a number', () => {
    const issue = issueOf(z.bigint().min(5n), 1n)
    expect(toWireIssue(issue)).toMatchObject({ minimum: 5, type: 'bigint' })
  })
})
