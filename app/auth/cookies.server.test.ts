import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr'
import { describe, expect, test } from 'vitest'

import { parseEnv } from '~/env.server'
import { PRODUCTION_ENV } from '~/env.test-support'

import { sessionCookieOptions } from './cookies.server'

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
