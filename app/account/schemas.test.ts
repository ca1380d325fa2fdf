import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, it } from 'vitest'
import type * as z from 'zod/mini'

import { ChangeEmailSchema, ChangePasswordSchema, DeleteAccountSchema } from './schemas'

/** Field errors of a failed submission (a successful one has none). */
function errorsOf(submission: object) {
  return 'error' in submission
    ? (submission.error as Record<string, string[] | null> | undefined)
    : undefined
}

function parse<S extends z.ZodMiniType>(schema: S, entries: Record<string, string>) {
  const data = new FormData()
  for (const [key, value] of Object.entries(entries)) data.append(key, value)
  return parseWithZod(data, { schema })
}

const password = {
  currentPassword: 'old-password',
  password: 'new-password-1',
  confirmPassword: 'new-password-1',
}
const same = 'same-password'

describe('the account forms', () => {
  it('accept a normalised address, a new repeated password and the confirmation word', () => {
    const email = parse(ChangeEmailSchema, { email: ' Ada@Example.COM ', currentPassword: 'x' })
    expect(email.status === 'success' && email.value.email).toBe('ada@example.com')
    expect(parse(ChangePasswordSchema, password).status).toBe('success')
    expect(parse(DeleteAccountSchema, { confirm: 'DELETE', code: '123456' }).status).toBe('success')
  })

  it.each<[z.ZodMiniType, Record<string, string>, string, string]>([
    [
      ChangeEmailSchema,
      { email: 'ada@' },
      'email',
      'Enter a valid email address, like name@example.com',
    ],
    [
      ChangePasswordSchema,
      { ...password, currentPassword: '' },
      'currentPassword',
      'Enter your current password',
    ],
    [
      ChangePasswordSchema,
      { ...password, password: 'short', confirmPassword: 'short' },
      'password',
      'Use at least 8 characters',
    ],
    [
      ChangePasswordSchema,
      { ...password, confirmPassword: 'new-password-2' },
      'confirmPassword',
      'The passwords do not match',
    ],
    [
      ChangePasswordSchema,
      { currentPassword: same, password: same, confirmPassword: same },
      'password',
      'Choose a password that is different from your current one',
    ],
    ...['', 'delete', 'DELET', 'yes'].map(
      (confirm): [z.ZodMiniType, Record<string, string>, string, string] => [
        DeleteAccountSchema,
        { confirm },
        'confirm',
        'Type DELETE to confirm',
      ],
    ),
  ])('%#: refuses %j at %s', (schema, entries, field, message) => {
    expect(errorsOf(parse(schema, entries))?.[field]).toEqual([message])
  })

  it('asks for the account deletion’s proof at the field the form shows (a password, or the emailed code)', () => {
    const errors = errorsOf(parse(DeleteAccountSchema, { confirm: 'DELETE' }))
    expect(errors?.currentPassword).toEqual(['Enter your current password'])
    expect(errors?.code).toEqual(['Enter the code from the email'])
    expect(errors?.['']).toBeUndefined()
  })
})
