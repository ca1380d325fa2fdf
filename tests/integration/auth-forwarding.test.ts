import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { confirmWithCode, signInWithPassword, signUp } from '../../app/auth/auth.server'
import * as signInPage from '../../app/routes/sign-in'
import { appRequest, callRoute, latestAuthMail } from './auth-support'
import { createSignedInUser, signInAs, startTestApp, type TestApp } from './harness'

// Supabase Auth's per-IP limits seen from the app: with a secret key the app forwards each
// visitor's address (Sb-Forwarded-For). The stand-in keeps Supabase's default limits here.

const BURST = 30

/** A request from a visitor behind the one trusted proxy (TRUSTED_PROXY_COUNT=1). */
function visitor(app: TestApp, ip: string, path = '/sign-in') {
  const request = appRequest(app, path)
  request.headers.set('X-Forwarded-For', ip)
  return request
}

const startApp = (supabaseKeys: 'new' | 'legacy') =>
  startTestApp({
    supabaseKeys,
    supabaseAuth: { sbForwardedFor: true },
    env: { TRUSTED_PROXY_COUNT: '1' },
  })

/** Spends a visitor's token bucket at the auth server (it refills at one every 2 s). */
async function spendTokenBucket(app: TestApp, ip: string) {
  let attempts = 0
  for (;;) {
    const outcome = await signInWithPassword(visitor(app, ip), 'nobody@example.com', 'wrong')
    attempts += 1
    if (outcome.errorCode === 'over_request_rate_limit') break
    expect(outcome.errorCode).toBe('invalid_credentials')
    expect(attempts).toBeLessThan(BURST * 3)
  }
  // A burst of 30 first: the first refusal comes after at least that many.
  expect(attempts).toBeGreaterThan(BURST)
}

describe('with the secret key (sb_secret_…): each visitor has their own bucket', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp('new')
  })
  afterAll(() => app.close())

  it('two visitors behind the same app server get separate buckets', async () => {
    await spendTokenBucket(app, '203.0.113.10')
    const other = await signInWithPassword(visitor(app, '203.0.113.11'), 'a@example.com', 'x')
    expect(other.errorCode).toBe('invalid_credentials')
  })

  it('IPv6 visitors from different /64 networks each keep their own budget at the auth server', async () => {
    // Each spends a whole budget of its own: forwarded as its /64, every one of them would
    // be ignored by the auth server and counted against this server, sharing one budget.
    const attackers = ['2001:db8:a:1::1', '2001:db8:a:2::1', '2001:db8:a:3::1']
    for (const address of attackers) await spendTokenBucket(app, address)
    // A visitor from yet another /64 is untouched by all of them.
    const other = await signInWithPassword(visitor(app, '2001:db8:b:1::7'), 'a@example.com', 'x')
    expect(other.errorCode).toBe('invalid_credentials')
    // The auth server counted each one by its own address, never this server's.
    const clients = app.stack.supabase.authClients()
    expect(clients).toEqual(expect.arrayContaining([...attackers, '2001:db8:b:1::7']))
    expect(clients).not.toContain('127.0.0.1')
  })

  it('the sign-in page shows the auth server’s 429 as a message, with status 429', async () => {
    // The visitor's bucket at the auth server is spent; the app's own limit is not.
    await spendTokenBucket(app, '203.0.113.20')
    const request = appRequest(app, '/sign-in', {
      form: { intent: 'password', email: 'someone@example.com', password: 'whatever-it-is' },
    })
    request.headers.set('X-Forwarded-For', '203.0.113.20')
    const outcome = await callRoute(signInPage.action, request)
    expect(outcome.status).toBe(429)
    expect(outcome.data).toMatchObject({
      formError: 'Too many attempts. Please wait a minute and try again.',
    })
  })

  it('a code tried past the auth server’s limit is answered “wait”, not “wrong code”', async () => {
    const request = () => visitor(app, '203.0.113.50', '/sign-up/confirm')
    // The verify bucket refills at one every 10 s: 30 tries spend it.
    for (let i = 0; i < BURST; i++) {
      const outcome = await confirmWithCode(request(), 'nobody@example.com', '000000')
      expect(outcome.errorCode).toBe('otp_expired')
    }
    const limited = await confirmWithCode(request(), 'nobody@example.com', '000000')
    expect(limited.errorCode).toBe('over_request_rate_limit')
    expect(limited.error).toBe('Too many attempts. Please wait a minute and try again.')
  })

  it('sign-up, confirmation and sessions work end to end with the publishable and secret keys', async () => {
    expect(app.stack.env.SUPABASE_ANON_KEY).toMatch(/^sb_publishable_/)
    expect(app.stack.env.SUPABASE_SERVICE_ROLE_KEY).toMatch(/^sb_secret_/)
    const email = `new-keys-${Date.now()}@example.com`
    await signUp(visitor(app, '203.0.113.30', '/sign-up'), email, 'correct-horse-battery')
    // The auth server is asked after the answer (mail-requests.server.ts).
    await latestAuthMail(app, email, 'signup')
    const user = await createSignedInUser(app)
    expect(await signInAs(app, user.email)).toMatch(/sb-localhost-auth-token/)
  })
})

describe('with the legacy keys only: every visitor shares the server’s bucket', () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp('legacy')
  })
  afterAll(() => app.close())

  it('one visitor’s attempts use up another’s (nothing is forwarded without a secret key)', async () => {
    expect(app.stack.env.SUPABASE_SERVICE_ROLE_KEY).toMatch(/^eyJ/)
    await spendTokenBucket(app, '203.0.113.40')
    const other = await signInWithPassword(visitor(app, '203.0.113.41'), 'a@example.com', 'x')
    expect(other.errorCode).toBe('over_request_rate_limit')
    expect(other.error).toBe('Too many attempts. Please wait a minute and try again.')
  })
})
