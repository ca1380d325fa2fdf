import { describe, expect, test } from 'vitest'
import { z } from 'zod'

import { contactSchema } from './schema'
import { toWireIssue, unreadableBodyIssue } from './wire-issues'

const KEYS = ['code', 'exact', 'inclusive', 'message', 'minimum', 'path', 'type']

// Classic schemas here, and the contact schema (zod/mini): both are zod 4 core schemas.
function issuesOf(schema: z.core.$ZodType, input: unknown) {
  const result = z.safeParse(schema, input)
  if (result.success) throw new Error('expected a failure')
  return result.error.issues
}

describe('toWireIssue', () => {
  test('too_small keeps the zod 3 shape: type from origin, exact false', () => {
    const [issue] = issuesOf(z.string().min(2, 'short'), 'a')
    expect(toWireIssue(issue)).toEqual({
      code: 'too_small',
      minimum: 2,
      type: 'string',
      inclusive: true,
      exact: false,
      message: 'short',
      path: [],
    })
  })

  test('an exact length keeps exact: true', () => {
    const [issue] = issuesOf(z.string().length(3, 'three'), 'a')
    expect(toWireIssue(issue)).toMatchObject({ code: 'too_small', minimum: 3, exact: true })
  })

  test('an invalid email becomes invalid_string with null bounds', () => {
    const [issue] = issuesOf(contactSchema.shape.email, 'nope')
    expect(toWireIssue(issue)).toEqual({
      code: 'invalid_string',
      minimum: null,
      type: 'string',
      inclusive: null,
      exact: null,
      message: 'Enter a valid email address',
      path: [],
    })
  })

  test('too_big has no minimum: bounds are null', () => {
    const [issue] = issuesOf(z.object({ a: z.string().max(1, 'long') }), { a: 'ab' })
    expect(toWireIssue(issue)).toEqual({
      code: 'too_big',
      minimum: null,
      type: 'string',
      inclusive: null,
      exact: null,
      message: 'long',
      path: ['a'],
    })
  })

  test('invalid_type takes its type from the expected type', () => {
    const [issue] = issuesOf(z.object({ list: z.array(z.string()) }), { list: [1] })
    expect(toWireIssue(issue)).toEqual({
      code: 'invalid_type',
      minimum: null,
      type: 'string',
      inclusive: null,
      exact: null,
      message: 'Invalid input: expected string, received number',
      path: ['list', 0],
    })
  })

  test('other codes pass through with a null type', () => {
    const [issue] = issuesOf(z.enum(['a', 'b']), 'c')
    expect(toWireIssue(issue)).toMatchObject({ code: 'invalid_value', type: null, minimum: null })
  })

  test('a bigint minimum becomes a number', () => {
    const [issue] = issuesOf(z.bigint().min(5n), 1n)
    expect(toWireIssue(issue)).toMatchObject({ minimum: 5, type: 'bigint' })
  })

  test('every issue of the contact schema has exactly the seven keys', () => {
    const issues = issuesOf(contactSchema, {
      firstName: 1,
      lastName: 'x',
      email: 'bad',
      message: 'y'.repeat(6000),
    }).map(toWireIssue)
    expect(issues).toHaveLength(5)
    for (const issue of issues) expect(Object.keys(issue).sort()).toEqual(KEYS)
    expect(Object.keys(unreadableBodyIssue('x')).sort()).toEqual(KEYS)
  })
})
