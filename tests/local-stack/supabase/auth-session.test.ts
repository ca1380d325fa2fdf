import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_JWKS, signAccessToken } from './keys'
import { raw, ssrClient, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

describe('access tokens', () => {
  it('carry GoTrue’s claims, signed ES256 with the published key', async () => {
    const id = await stack.createUser('claims@example.com')
    const { session } = await stack.signIn('claims@example.com')
    const { payload, protectedHeader } = await jwtVerify(
      session.access_token,
      createLocalJWKSet(LOCAL_JWKS),
    )
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: LOCAL_JWKS.keys[0].kid })
    expect(payload).toMatchObject({
      iss: `${stack.emulator.url}/auth/v1`,
      sub: id,
      aud: 'authenticated',
      email: 'claims@example.com',
      phone: '',
      role: 'authenticated',
      aal: 'aal1',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: {},
      is_anonymous: false,
    })
    expect(payload.amr).toEqual([{ method: 'password', timestamp: expect.any(Number) }])
    expect(payload.exp! - payload.iat!).toBe(3600)
    expect(payload.session_id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('getClaims() verifies locally via JWKS without calling /user', async () => {
    await stack.createUser('getclaims@example.com')
    const { supabase } = await stack.signIn('getclaims@example.com')
    const before = stack.emulator.countsByPath()['/user'] ?? 0
    const first = await supabase.auth.getClaims()
    const second = await supabase.auth.getClaims()
    expect(first.error).toBeNull()
    expect(first.data?.claims.email).toBe('getclaims@example.com')
    expect(second.data?.claims.sub).toBe(first.data?.claims.sub)
    expect(stack.emulator.countsByPath()['/user'] ?? 0).toBe(before)
    expect(stack.emulator.countsByPath()['/.well-known/jwks.json']).toBeGreaterThanOrEqual(1)
  })

  it('on the legacy JWT secret: HS256 tokens, an empty JWKS, and getClaims() asks /user', async () => {
    const legacy = await startTestStack({ jwtSigning: 'legacy' })
    try {
      await legacy.createUser('legacy@example.com')
      const { session, supabase } = await legacy.signIn('legacy@example.com')
      const jwks = await raw(legacy.emulator, '/auth/v1/.well-known/jwks.json')
      expect(await jwks.json()).toEqual({ keys: [] })
      expect(decodeProtectedHeader(session.access_token)).toEqual({ alg: 'HS256', typ: 'JWT' })
      const before = legacy.emulator.countsByPath()['/user'] ?? 0
      const { data, error } = await supabase.auth.getClaims()
      expect(error).toBeNull()
      expect(data?.claims.email).toBe('legacy@example.com')
      expect(legacy.emulator.countsByPath()['/user']).toBe(before + 1)
    } finally {
      await legacy.close()
    }
  })

  it('half-migrated (a standby key): the JWKS publishes ES256, tokens are still HS256 without a kid', async () => {
    const standby = await startTestStack({ jwtSigning: 'standby' })
    try {
      await standby.createUser('standby@example.com')
      const { session } = await standby.signIn('standby@example.com')
      const jwks = await raw(standby.emulator, '/auth/v1/.well-known/jwks.json')
      expect(await jwks.json()).toEqual(LOCAL_JWKS)
      expect(decodeProtectedHeader(session.access_token)).toEqual({ alg: 'HS256', typ: 'JWT' })
    } finally {
      await standby.close()
    }
  })

  it('works through @supabase/ssr cookies (sb-localhost-auth-token) without an auth round trip per request', async () => {
    await stack.createUser('ssr@example.com')
    const signer = ssrClient(stack.emulator.url)
    const signedIn = await signer.client.auth.signInWithPassword({
      email: 'ssr@example.com',
      password: 'correct-horse-battery',
    })
    expect(signedIn.error).toBeNull()
    expect([...signer.jar.cookies.keys()]).toContain('sb-localhost-auth-token')
    expect(signer.jar.cookies.get('sb-localhost-auth-token')).toMatch(/^base64-/)

    const page = ssrClient(stack.emulator.url, signer.jar)
    const warm = await page.client.auth.getClaims()
    expect(warm.data?.claims.email).toBe('ssr@example.com')
    const total = () => Object.values(stack.emulator.countsByPath()).reduce((sum, n) => sum + n)
    const before = total()
    const userCallsBefore = stack.emulator.countsByPath()['/user'] ?? 0
    const { data, error } = await ssrClient(stack.emulator.url, signer.jar).client.auth.getClaims()
    expect(error).toBeNull()
    expect(data?.claims.email).toBe('ssr@example.com')
    // A fresh client fetches the JWKS once (cached per client); it never calls /user.
    expect(total() - before).toBeLessThanOrEqual(1)
    expect(stack.emulator.countsByPath()['/user'] ?? 0).toBe(userCallsBefore)
  })

  it('rejects an expired or forged access token on /user with bad_jwt', async () => {
    const id = await stack.createUser('expired@example.com')
    const now = Math.floor(Date.now() / 1000)
    const expired = await signAccessToken({
      sub: id,
      role: 'authenticated',
      aud: 'authenticated',
      iat: now - 7200,
      exp: now - 3600,
    })
    const { error } = await stack.client().auth.getUser(expired)
    expect(error).toMatchObject({ status: 403, code: 'bad_jwt' })
    expect(error?.message).toContain('token is expired')

    const claims = await stack.client().auth.getClaims(expired)
    expect(claims.error?.name).toBe('AuthInvalidJwtError')

    const forged = expired.slice(0, -4) + 'AAAA'
    const forgedResult = await stack.client().auth.getUser(forged)
    expect(forgedResult.error).toMatchObject({ status: 403, code: 'bad_jwt' })
  })

  it('getUser() returns the user for a valid token', async () => {
    const id = await stack.createUser('getuser@example.com')
    const { supabase } = await stack.signIn('getuser@example.com')
    const { data, error } = await supabase.auth.getUser()
    expect(error).toBeNull()
    expect(data.user).toMatchObject({
      id,
      email: 'getuser@example.com',
      phone: '',
      is_anonymous: false,
    })
  })
})

describe('refresh tokens', () => {
  it('rotate, tolerate a lost response, and revoke the session when an old token is reused', async () => {
    await stack.createUser('refresh@example.com')
    const { supabase, session } = await stack.signIn('refresh@example.com')
    const rt0 = session.refresh_token

    const first = await supabase.auth.refreshSession({ refresh_token: rt0 })
    expect(first.error).toBeNull()
    const rt1 = first.data.session!.refresh_token
    expect(rt1).not.toBe(rt0)
    expect(first.data.session!.user.email).toBe('refresh@example.com')

    // The client lost the response: the parent of the active token gets the active token back.
    const retry = await stack.client().auth.refreshSession({ refresh_token: rt0 })
    expect(retry.data.session?.refresh_token).toBe(rt1)

    const second = await stack.client().auth.refreshSession({ refresh_token: rt1 })
    const rt2 = second.data.session!.refresh_token
    await stack.db.query(
      `update auth.refresh_tokens set updated_at = now() - interval '1 minute' where token = $1`,
      [rt0],
    )

    const reused = await stack.client().auth.refreshSession({ refresh_token: rt0 })
    expect(reused.error).toMatchObject({ status: 400, code: 'refresh_token_already_used' })
    const afterTheft = await stack.client().auth.refreshSession({ refresh_token: rt2 })
    expect(afterTheft.error).toMatchObject({ status: 400, code: 'refresh_token_not_found' })

    const user = await stack.client().auth.getUser(second.data.session!.access_token)
    expect(user.error?.name).toBe('AuthSessionMissingError')
  })

  it('reject an unknown token with refresh_token_not_found', async () => {
    const { error } = await stack
      .client()
      .auth.refreshSession({ refresh_token: 'not-a-real-token' })
    expect(error).toMatchObject({ status: 400, code: 'refresh_token_not_found' })
  })
})

describe('sign-out', () => {
  it('scope local ends only this session, others keeps it, global ends all', async () => {
    await stack.createUser('signout@example.com')
    const a = await stack.signIn('signout@example.com')
    const b = await stack.signIn('signout@example.com')
    const c = await stack.signIn('signout@example.com')

    expect((await a.supabase.auth.signOut({ scope: 'local' })).error).toBeNull()
    expect(
      (await stack.client().auth.refreshSession({ refresh_token: a.session.refresh_token })).error
        ?.code,
    ).toBe('refresh_token_not_found')
    expect((await stack.client().auth.getUser(b.session.access_token)).error).toBeNull()

    expect((await b.supabase.auth.signOut({ scope: 'others' })).error).toBeNull()
    expect((await stack.client().auth.getUser(b.session.access_token)).error).toBeNull()
    expect((await stack.client().auth.getUser(c.session.access_token)).error?.name).toBe(
      'AuthSessionMissingError',
    )

    expect((await b.supabase.auth.signOut()).error).toBeNull()
    expect(
      (await stack.client().auth.refreshSession({ refresh_token: b.session.refresh_token })).error
        ?.code,
    ).toBe('refresh_token_not_found')
    const { count } = await countSessions('signout@example.com')
    expect(count).toBe(0)
  })

  it('answers 204 to POST /logout', async () => {
    await stack.createUser('logout204@example.com')
    const { session } = await stack.signIn('logout204@example.com')
    const response = await fetch(`${stack.emulator.url}/auth/v1/logout?scope=global`, {
      method: 'POST',
      headers: { apikey: 'x', authorization: `Bearer ${session.access_token}` },
    })
    expect(response.status).toBe(401)
    const ok = await fetch(`${stack.emulator.url}/auth/v1/logout?scope=global`, {
      method: 'POST',
      headers: {
        apikey: (await import('./keys')).LOCAL_ANON_KEY,
        authorization: `Bearer ${session.access_token}`,
      },
    })
    expect(ok.status).toBe(204)
    expect(await ok.text()).toBe('')
  })
})

async function countSessions(email: string) {
  const { rows } = await stack.db.query<{ count: string }>(
    `select count(*) from auth.sessions s join auth.users u on u.id = s.user_id where u.email = $1`,
    [email],
  )
  return { count: Number(rows[0].count) }
}
