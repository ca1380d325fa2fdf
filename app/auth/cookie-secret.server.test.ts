import { afterEach, expect, test } from 'vitest'

import { authCookie } from '~/auth/cookies.server'
import { LOCAL_SUPABASE_NEW_KEYS, resetEnvForTests } from '~/env.server'

const saved = { ...process.env }
afterEach(() => {
  process.env = { ...saved }
  resetEnvForTests()
})

/** Signs a value with the settings of now, then reads it back after `change`. */
async function survives(change: () => void) {
  resetEnvForTests()
  const cookie = () => authCookie('auth_flow', 60, 'auth-flow')
  const header = (await cookie().serialize({ flow: 'x' })).split(';')[0]
  change()
  resetEnvForTests()
  return (await cookie().parse(header)) !== null
}

test('with COOKIE_SECRET set, rotating the Supabase secret key leaves signed cookies valid', async () => {
  process.env.COOKIE_SECRET = 'a-cookie-secret-of-at-least-32-characters'
  expect(
    await survives(() => (process.env.SUPABASE_SERVICE_ROLE_KEY = LOCAL_SUPABASE_NEW_KEYS.secret)),
  ).toBe(true)
  expect(
    await survives(() => (process.env.COOKIE_SECRET = 'another-cookie-secret-of-32-characters')),
  ).toBe(false)
})

test('unset, cookies are signed from the Supabase secret key (the fallback), so its rotation ends them', async () => {
  delete process.env.COOKIE_SECRET
  expect(
    await survives(() => (process.env.SUPABASE_SERVICE_ROLE_KEY = LOCAL_SUPABASE_NEW_KEYS.secret)),
  ).toBe(false)
})

test('a short COOKIE_SECRET stops the start, named', async () => {
  process.env.COOKIE_SECRET = 'short'
  resetEnvForTests()
  expect(() => authCookie('auth_flow', 60, 'auth-flow')).toThrow(
    /COOKIE_SECRET: must be 32 characters or more/,
  )
})
