import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'

import { AUTH_RATE_LIMITS, emailKey } from '../../app/auth/rate-limits.server'
import { resetEnvForTests } from '../../app/env.server'
import { logger } from '../../app/lib/server/logger.server'
import {
  getRateLimitStore,
  MemoryRateLimitStore,
  PostgresRateLimitStore,
  setRateLimitStore,
} from '../../app/lib/server/rate-limit.server'
import * as contactApi from '../../app/routes/api.contact'
import * as contactPage from '../../app/routes/contact'
import * as settingsAccount from '../../app/routes/dashboard.settings.account'
import * as settingsNotifications from '../../app/routes/dashboard.settings.notifications'
import * as forgotPassword from '../../app/routes/forgot-password'
import * as resetPassword from '../../app/routes/reset-password'
import * as signInPage from '../../app/routes/sign-in'
import * as signUpPage from '../../app/routes/sign-up'
import { callAt, callRoute } from './auth-support'
import { createSignedInUser, newEmail, testAppForFile } from './harness'

// Abuse limits of the auth and contact forms (429 in the form's shape, Retry-After), on both
// stores, then the body caps of the form actions (413).
// One proxy in front: the client is the last X-Forwarded-For entry.
const app = testAppForFile({ env: { TRUSTED_PROXY_COUNT: '1', RATE_LIMIT_STORE: 'memory' } })

afterEach(() => vi.restoreAllMocks())

const signIn = (ip: string, email: string) =>
  callAt(app, signInPage.action, '/sign-in', {
    form: { intent: 'password', email, password: 'x' },
    ip,
  })
const magicLink = (ip: string, email: string) =>
  callAt(app, signInPage.action, '/sign-in', { form: { intent: 'magic-link', email }, ip })
const signUp = (ip: string, email: string) =>
  callAt(app, signUpPage.action, '/sign-up', {
    form: { email, password: 'correct-horse-battery-staple' },
    ip,
  })
const forgot = (ip: string, email: string) =>
  callAt(app, forgotPassword.action, '/forgot-password', { form: { email }, ip })

function expectLimited(outcome: { status: number; headers: Headers; data: unknown }) {
  expect(outcome.status).toBe(429)
  const retryAfter = Number(outcome.headers.get('Retry-After'))
  expect(retryAfter).toBeGreaterThan(0)
  expect(outcome.data).toMatchObject({
    formError: expect.stringMatching(
      /^Too many (attempts|sign-ups)\. Please wait \d+ minutes? and try again\.$/,
    ),
  })
}

describe.each([
  ['memory', '10.0.1'],
  ['postgres', '10.0.2'],
])('rate limits with RATE_LIMIT_STORE=%s', (storeName, net) => {
  beforeAll(() => {
    process.env.RATE_LIMIT_STORE = storeName
    resetEnvForTests()
    setRateLimitStore(undefined) // back to the configured store
    expect(getRateLimitStore()).toBeInstanceOf(
      storeName === 'postgres' ? PostgresRateLimitStore : MemoryRateLimitStore,
    )
  })

  it('sign-in: per email address and client, so a stranger cannot lock the account out', async () => {
    const email = newEmail('target')
    const attacker = `${net}.10`
    const { limit } = AUTH_RATE_LIMITS['sign-in'].email
    for (let i = 0; i < limit; i++) {
      expect((await signIn(attacker, email)).status).toBe(400)
    }
    const limited = await signIn(attacker, email)
    expectLimited(limited)
    expect(limited.data).toMatchObject({ intent: 'password' })
    // The password is never sent back, even on a 429.
    expect(JSON.stringify(limited.data)).not.toContain('"x"')
    // The account's owner, elsewhere, is not locked out by the stranger's attempts.
    expect((await signIn(`${net}.99`, email)).status).toBe(400)
  })

  it('sign-in: per client, whichever emails it tries', async () => {
    const ip = `${net}.200`
    const { limit } = AUTH_RATE_LIMITS['sign-in'].client
    for (let i = 0; i < limit; i++) expect((await signIn(ip, newEmail('spray'))).status).toBe(400)
    expectLimited(await signIn(ip, newEmail('spray')))
    expect((await signIn(`${net}.201`, newEmail('spray'))).status).toBe(400)
  })

  it('magic link: per email address', async () => {
    const email = newEmail('magic')
    const { limit } = AUTH_RATE_LIMITS['magic-link'].email
    for (let i = 0; i < limit; i++) {
      expect((await magicLink(`${net}.${30 + i}`, email)).status).toBe(303)
    }
    const limited = await magicLink(`${net}.39`, email)
    expectLimited(limited)
    expect(limited.data).toMatchObject({ intent: 'magic-link' })
  })

  it('password reset: per email address, in the page’s shape', async () => {
    const email = newEmail('reset')
    const { limit } = AUTH_RATE_LIMITS['password-reset'].email
    for (let i = 0; i < limit; i++) {
      expect((await forgot(`${net}.${40 + i}`, email)).status).toBe(200)
    }
    const limited = await forgot(`${net}.49`, email)
    expectLimited(limited)
    expect(limited.data).toMatchObject({ sentTo: null })
  })

  it('sign-up: per client', async () => {
    const ip = `${net}.50`
    const { limit } = AUTH_RATE_LIMITS['sign-up'].client
    for (let i = 0; i < limit; i++) expect((await signUp(ip, newEmail('new'))).status).toBe(303)
    const limited = await signUp(ip, newEmail('new'))
    expectLimited(limited)
    expect(JSON.stringify(limited.data)).not.toContain('correct-horse')
  })

  const account = (ip: string, cookie: string, form: Record<string, string>) =>
    callAt(app, settingsAccount.action, '/dashboard/settings/account', { cookie, form, ip })

  /** A new account asks to move to `email`: each asks for its own current password. */
  const changeEmail = async (ip: string, email: string) =>
    account(ip, (await createSignedInUser(app)).cookie, {
      intent: 'change-email',
      email,
      currentPassword: 'correct-horse-battery',
    })

  it('email change: per address asked for, whoever asks (mail to any address)', async () => {
    const target = newEmail('inbox')
    const { limit } = AUTH_RATE_LIMITS['email-change'].email
    for (let i = 0; i < limit; i++)
      expect((await changeEmail(`${net}.${70 + i}`, target)).status).toBe(200)
    const limited = await changeEmail(`${net}.79`, target)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect(limited.data).toMatchObject({
      intent: 'change-email',
      result: { error: { '': [expect.stringMatching(/^Too many attempts/)] } },
    })
  })

  it('email change: per client, whichever addresses it names', async () => {
    const ip = `${net}.80`
    const { limit } = AUTH_RATE_LIMITS['email-change'].client
    for (let i = 0; i < limit; i++)
      expect((await changeEmail(ip, newEmail('spray-inbox'))).status).toBe(200)
    expect((await changeEmail(ip, newEmail('spray-inbox'))).status).toBe(429)
  })

  it('current password check: per account and client, then the right password is refused too', async () => {
    const user = await createSignedInUser(app)
    const guess = (ip: string, currentPassword: string) =>
      account(ip, user.cookie, {
        intent: 'change-password',
        currentPassword,
        password: 'a-new-password-42',
        confirmPassword: 'a-new-password-42',
      })
    const { limit } = AUTH_RATE_LIMITS['password-check'].email
    for (let i = 0; i < limit; i++)
      expect((await guess(`${net}.90`, `guess-${i}`)).status).toBe(400)
    const limited = await guess(`${net}.90`, 'correct-horse-battery')
    expect(limited.status).toBe(429)
    expect(JSON.stringify(limited.data)).not.toContain('correct-horse')
    // The password did not change; the owner elsewhere still may.
    expect((await guess(`${net}.91`, 'correct-horse-battery')).status).toBe(200)
  })

  it('contact: per client, 429 in the form’s shape', async () => {
    vi.spyOn(logger, 'info').mockImplementation(() => {})
    const ip = `${net}.60`
    const send = () =>
      callAt(app, contactPage.action, '/contact', {
        form: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: 'ada@example.com',
          company: 'Analytical Engines',
          message: 'Hello there, a question about plans.',
        },
        ip,
      })
    for (let i = 0; i < 5; i++) expect((await send()).status).toBe(200)
    const limited = await send()
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0)
  })
})

it('contact receipts are budgeted per recipient: a hundred messages naming one address from 20 clients: each stored and sent to the team, one receipt', async () => {
  const email = newEmail('stranger')
  const message = { firstName: 'Eve', lastName: 'Sender', email, company: 'Flood Inc' }
  const send = (ip: string) =>
    callAt(app, contactApi.action, '/api/contact', {
      form: { ...message, message: 'Hello, hello!' },
      ip,
    })
  for (let client = 1; client <= 20; client++) {
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(`10.0.4.${client}`)))
    for (const { status, data } of answers)
      expect([status, JSON.parse(data as string).success]).toEqual([200, true])
  }
  const { rows } = await app.stack.database.query<{ kind: string; count: number }>(
    `select kind, count(*)::int as count from public.notification_outbox
     where data->>'email' = $1 or to_address = $1 group by kind order by kind`,
    [email],
  )
  expect(rows).toEqual([
    { kind: 'contact_message', count: 100 },
    { kind: 'contact_receipt', count: 1 },
  ])
})

it('the Postgres store keeps no email address: stores hashed email keys only', async () => {
  const email = newEmail('privacy')
  process.env.RATE_LIMIT_STORE = 'postgres'
  resetEnvForTests()
  setRateLimitStore(undefined)
  await signIn('10.0.3.1', email)
  const { rows } = await app.stack.database.query<{ key: string }>(
    'select key from public.rate_limits',
  )
  const keys = rows.map((row) => row.key)
  expect(keys).toContain(`auth:sign-in:email:${emailKey(email)}:ip:10.0.3.1`)
  expect(keys).toContain('auth:sign-in:ip:10.0.3.1')
  expect(keys.join('\n')).not.toContain('@')
})

describe('body caps of the form actions (413)', () => {
  const big = 'a'.repeat(200 * 1024)

  it.each([
    ['sign-in', signInPage.action, '/sign-in', false],
    ['sign-up', signUpPage.action, '/sign-up', false],
    ['forgot-password', forgotPassword.action, '/forgot-password', false],
    ['contact', contactPage.action, '/contact', false],
    ['reset-password', resetPassword.action, '/reset-password', true],
    ['account settings', settingsAccount.action, '/dashboard/settings/account', true],
    [
      'notification settings',
      settingsNotifications.action,
      '/dashboard/settings/notifications',
      true,
    ],
  ])('%s refuses a body over the cap', async (_name, action, path, signedIn) => {
    const cookie = signedIn ? (await createSignedInUser(app)).cookie : undefined
    const form = { intent: 'x', email: 'a@example.com', padding: big }
    expect((await callAt(app, action, path, { cookie, form })).status).toBe(413)
  })

  it('a declared Content-Length over the cap is refused unread', async () => {
    const request = new Request(new URL('/sign-in', app.url), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': String(10 * 1024 * 1024),
      },
      body: 'email=a%40example.com',
    })
    expect((await callRoute(signInPage.action, request)).status).toBe(413)
    expect(request.bodyUsed).toBe(false)
  })

  it('the Stripe checkout API answers 413 in its JSON shape', async () => {
    const user = await createSignedInUser(app)
    const response = await fetch(`${app.url}/api/checkout_sessions`, {
      method: 'POST',
      headers: { Cookie: user.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `price_id=x&padding=${big}`,
    })
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual({ error: expect.stringMatching(/at most \d+ bytes/) })
  })
})
