import { readFileSync } from 'node:fs'
import path from 'node:path'

import { parse } from 'smol-toml'
import { describe, expect, it } from 'vitest'

import { PASSWORD_MIN_LENGTH } from '../../app/auth/limits'
import { SignUpSchema } from '../../app/auth/schemas'
import { PROJECT_ROOT } from '../local-stack/database'

/**
 * The sign-up form's password rules are the project's own (supabase/config.toml): the auth
 * server is asked after the answer (the same work whether or not an address has an
 * account), so a password it would refuse must already be refused by the form.
 */
const config = parse(readFileSync(path.join(PROJECT_ROOT, 'supabase/config.toml'), 'utf8')) as {
  auth: { minimum_password_length?: number; password_requirements?: string }
}

describe('password rules: the form and the project agree', () => {
  it('the same minimum length, and no character classes the form does not ask for', () => {
    expect(config.auth.minimum_password_length).toBe(PASSWORD_MIN_LENGTH)
    expect(config.auth.password_requirements ?? '').toBe('')
  })

  it('the form refuses a password one character short of the minimum', () => {
    const form = (password: string) =>
      SignUpSchema.safeParse({ email: 'ada@example.com', password }).success
    expect(form('x'.repeat(PASSWORD_MIN_LENGTH - 1))).toBe(false)
    expect(form('x'.repeat(PASSWORD_MIN_LENGTH))).toBe(true)
  })
})
