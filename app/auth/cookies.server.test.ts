import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr'
import { afterEach, describe, expect, test } from 'vitest'

import { rememberRequestedEmail } from '~/account/credentials.server'
import { parseEnv, resetEnvForTests } from '~/env.server'
import { PRODUCTION_ENV } from '~/env.test-support'

import { rememberAuthFailure } from './auth-failure.server'
import { rememberEmailConfirmed } from './confirmed-notice.server'
import { sessionCookieOptions } from './cookies.server'
import { markLinkRequested } from './link-origin.server'
import { newPendingSignUp } from './pending-sign-up.server'
import { rememberAfterSignUp } from './plan-intent.server'
import { markRecovery } from './recovery.server'

const production = parseEnv(PRODUCTION_ENV)

/** An auth server that signs anyone in with a token long enough to be chunked. */
const fakeAuthServer: typeof fetch = async () =>
  Response.json({
    access_token: `header.${'a'.repeat(5000)}.signature`,
    refresh_token: 'refresh',
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    user: { id: '00000000-0000-4000-8000-000000000001', aud: 'authenticated' },
  })

/** A client as session.server.ts makes it, over a cookie jar. */
function client(jar: Map<string, { value: string; header: string }>) {
  return createServerClient(production.SUPABASE_URL, 'anon', {
    global: { fetch: fakeAuthServer },
    cookieOptions: sessionCookieOptions(production),
    cookies: {
      getAll: () =>
        parseCookieHeader([...jar].map(([name, { value }]) => `${name}=${value}`).join('; ')),
      setAll(cookies) {
        for (const { name, value, options } of cookies)
          jar.set(name, { value, header: serializeCookieHeader(name, value, options) })
      },
    },
  })
}

describe('the session cookie in production', () => {
  test('is __Host- prefixed: Secure, Path=/, no Domain, HttpOnly, even in chunks', async () => {
    expect(sessionCookieOptions(production).name).toBe('__Host-sb-abcd-auth-token')
    const jar = new Map<string, { value: string; header: string }>()
    await client(jar).auth.signInWithPassword({ email: 'a@example.com', password: 'x' })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(jar.size).toBeGreaterThan(1)
    for (const name of jar.keys()) expect(name).toMatch(/^__Host-sb-abcd-auth-token\.\d$/)
    for (const { header } of jar.values()) {
      expect(header).toMatch(/; Path=\/(;|$)/)
      expect(header).toMatch(/; Secure(;|$)/)
      expect(header).toMatch(/; HttpOnly(;|$)/)
      expect(header).not.toMatch(/Domain=/i)
    }
    // The next request reads the chunks back under that name (the @supabase/ssr contract).
    const { data } = await client(jar).auth.getSession()
    expect(data.session?.access_token).toMatch(/^header\.a+\.signature$/)
  })

  test('development over http keeps Supabase’s own name, without Secure', () => {
    const development = { ...production, NODE_ENV: 'development' as const }
    expect(sessionCookieOptions(development)).toMatchObject({
      name: 'sb-abcd-auth-token',
      secure: false,
    })
  })
})

describe('the flow cookies in production', () => {
  const saved = { ...process.env }
  afterEach(() => {
    process.env = { ...saved }
    resetEnvForTests()
  })

  // The login-CSRF mark among them: a sibling subdomain must not plant its own signed copy.
  test.each([
    ['auth_flow', () => markLinkRequested(new Request(PRODUCTION_ENV.SITE_URL), 'a@example.com')],
    ['pending_sign_up', () => newPendingSignUp('a@example.com').cookie],
    ['recovery_mark', () => markRecovery('00000000-0000-4000-8000-000000000001')],
    ['after_sign_up', () => rememberAfterSignUp('/subscribe/pro')],
    ['email_change', () => rememberRequestedEmail('b@example.com')],
    ['email_confirmed', () => rememberEmailConfirmed()],
    ['auth_failure', () => rememberAuthFailure('signup')],
  ])('%s is __Host-: Secure, Path=/, no Domain', async (name, setCookie) => {
    Object.assign(process.env, PRODUCTION_ENV)
    resetEnvForTests()
    const header = await setCookie()
    expect(header).toMatch(new RegExp(`^__Host-${name}=`))
    expect(header).toMatch(/; Path=\/(;|$)/)
    expect(header).toMatch(/; Secure(;|$)/)
    expect(header).not.toMatch(/Domain=/i)
  })
})
