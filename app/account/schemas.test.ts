import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, it } from 'vitest'

import { ChangeEmailSchema, ChangePasswordSchema, DeleteAccountSchema } from './schemas'

/** Field errors of a failed submission (a successful one has none). */
function errorsOf(submission: object) {
  return 'error' in submission
    ? (submission.error as Record<string, string[] | null> | undefined)
    : undefined
}

function form(entries: Record<string, string>) {
  const data = new FormData()
  for (const [key, value] of Object.entries(entries)) data.append(key, value)
  return data
}

describe('ChangeEmailSchema', () => {
  it('normalises the address', () => {
    const result = parseWithZod(form({ email: ' Ada@Example.COM ', currentPassword: 'x' }), {
      schema: ChangeEmailSchema,
    })
    expect(result.status === 'success' && result.value.email).toBe('ada@example.com')
  })
  it('refuses a malformed address', () => {
    const result = parseWithZod(form({ email: 'ada@' }), { schema: ChangeEmailSchema })
    expect(errorsOf(result)?.email).toEqual(['Enter a valid email address, like name@example.com'])
  })
})

describe('ChangePasswordSchema', () => {
  const valid = {
    currentPassword: 'old-password',
    password: 'new-password-1',
    confirmPassword: 'new-password-1',
  }

  it('accepts a new, repeated password', () => {
    expect(parseWithZod(form(valid), { schema: ChangePasswordSchema }).status).toBe('success')
  })
  it('needs the current password', () => {
    const result = parseWithZod(form({ ...valid, currentPassword: '' }), {
      schema: ChangePasswordSchema,
    })
    expect(errorsOf(result)?.currentPassword).toEqual(['Enter your current password'])
  })
  it('needs at least 8 characters', () => {
    const result = parseWithZod(form({ ...valid, password: 'short', confirmPassword: 'short' }), {
      schema: ChangePasswordSchema,
    })
    expect(errorsOf(result)?.password).toEqual(['Use at least 8 characters'])
  })
  it('needs the repeat to match', () => {
    const result = parseWithZod(form({ ...valid, confirmPassword: 'new-password-2' }), {
      schema: ChangePasswordSchema,
    })
    expect(errorsOf(result)?.confirmPassword).toEqual(['The passwords do not match'])
  })
  it('refuses the same password again', () => {
    const result = parseWithZod(
      form({
        currentPassword: 'same-password',
        password: 'same-password',
        confirmPassword: 'same-password',
      }),
      { schema: ChangePasswordSchema },
    )
    expect(errorsOf(result)?.password).toEqual([
      'Choose a password that is different from your current one',
    ])
  })
})

describe('DeleteAccountSchema', () => {
  it('accepts the confirmation word', () => {
    const proven = form({ confirm: 'DELETE', code: '123456' })
    expect(parseWithZod(proven, { schema: DeleteAccountSchema }).status).toBe('success')
  })
  it('asks for the proof at the field the form shows (a password, or the emailed code)', () => {
    const result = parseWithZod(form({ confirm: 'DELETE' }), { schema: DeleteAccountSchema })
    expect(errorsOf(result)?.currentPassword).toEqual(['Enter your current password'])
    expect(errorsOf(result)?.code).toEqual(['Enter the code from the email'])
    expect(errorsOf(result)?.['']).toBeUndefined()
  })
  it.each(['', 'delete', 'DELET', 'yes'])('refuses %j', (confirm) => {
    const result = parseWithZod(form({ confirm }), { schema: DeleteAccountSchema })
    expect(errorsOf(result)?.confirm).toEqual(['Type DELETE to confirm'])
  })
})
