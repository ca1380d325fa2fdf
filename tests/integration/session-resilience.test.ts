import { afterEach, describe, expect, it, vi } from 'vitest'

import { sessionConfirmations } from '../../app/auth/session.server'
import type { FormReply } from '../../app/lib/forms/form-reply'
import * as polarPortal from '../../app/routes/api.portal'
import * as dashboard from '../../app/routes/dashboard'
import * as account from '../../app/routes/dashboard.settings.account'
import { value } from '../setup/database'
import {
  callRoute,
  clearedCookies,
  expireSession,
  isRevoked,
  readSession,
  SESSIONS_OF,
  setCookies,
} from './auth-support'
import { adminClient, createSignedInUser, testAppForFile } from './harness'
import { formPost, pageGet } from './settings-support'

// Only a definite "this session is gone" ends a session; a 429, a 5xx or no answer is a 503.
const app = testAppForFile()
type User = Awaited<ReturnType<typeof createSignedInUser>>

const ACCOUNT = '/dashboard/settings/account'
const SESSION_CHECK = '^/rest/v1/rpc/session_is_active$'

afterEach(() => {
  app.stack.supabase.clearFaults()
})

const dashboardPage = (cookie: string) =>
  callRoute(dashboard.loader, pageGet(`${app.url}/dashboard`, cookie))
const changeEmail = (user: User, cookie = user.cookie) =>
  callRoute<FormReply>(
    account.action,
    formPost(`${app.url}${ACCOUNT}`, cookie, {
      intent: 'change-email',
      currentPassword: 'correct-horse-battery',
      email: `moved-${user.email}`,
    }),
  )

const sessionCount = (userId: string) => value<number>(app.stack.database, SESSIONS_OF, [userId])

async function timed<T>(work: Promise<T>) {
  const started = performance.now()
  const value = await work
  return { value, ms: performance.now() - started }
}

describe('an action confirmed by the auth server', () => {
  it('a 429 answers 503 "try again" and leaves the session alone', async () => {
    const user = await createSignedInUser(app)
    app.stack.supabase.addFault({ method: 'GET', path: '/auth/v1/user', status: 429, count: 1 })
    const refused = await changeEmail(user)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(refused.data).toMatch(/try again/i)
    expect(clearedCookies(refused.headers)).toEqual([])
    expect(await sessionCount(user.id)).toBe(1)
    // The same browser carries on, and the action works once the auth server answers.
    expect((await dashboardPage(user.cookie)).status).toBe(200)
    expect((await changeEmail(user)).status).toBe(200)
  })

  it('a 5xx answers 503, and so does no answer within the auth call timeout', async () => {
    const user = await createSignedInUser(app)
    app.stack.supabase.addFault({ method: 'GET', path: '/auth/v1/user', status: 502, count: 1 })
    expect((await changeEmail(user)).status).toBe(503)

    app.stack.supabase.addFault({ method: 'GET', path: '/auth/v1/user', delayMs: 8_000, count: 1 })
    const hung = await timed(changeEmail(user))
    expect(hung.value.status).toBe(503)
    expect(hung.ms).toBeGreaterThan(4_500)
    expect(hung.ms).toBeLessThan(7_000)
    expect(await sessionCount(user.id)).toBe(1)
    expect((await dashboardPage(user.cookie)).status).toBe(200)
  })

  it('a definite answer (the session is gone) still signs the browser out', async () => {
    const user = await createSignedInUser(app)
    app.stack.supabase.addFault({
      method: 'GET',
      path: '/auth/v1/user',
      status: 403,
      code: 'session_not_found',
      message: 'Session from session_id claim in JWT does not exist',
      count: 1,
    })
    const answer = await changeEmail(user)
    expect(answer).toMatchObject({ status: 303, location: '/sign-in?notice=sign-in-to-continue' })
    expect(answer.headers.getSetCookie().join('\n')).toMatch(/sb-[^=]+-auth-token=;/)
  })
})

it('an API route: answers 503 in its {error} shape, and a browser following the portal link gets a page', async () => {
  const user = await createSignedInUser(app)
  app.stack.supabase.addFault({ method: 'GET', path: '/auth/v1/user', status: 429, count: 2 })
  const api = await fetch(`${app.url}/api/customer_portal`, {
    method: 'POST',
    headers: { Cookie: user.cookie },
  })
  expect(api.status).toBe(503)
  expect(api.headers.get('retry-after')).toBe('5')
  expect(await api.json()).toEqual({
    error: 'Sign-in is unavailable for a moment. Please try again shortly.',
  })
  // A browser's navigation (Sec-Fetch-Mode: navigate, which Node's fetch would overwrite).
  const browser = await callRoute(
    polarPortal.loader,
    new Request(`${app.url}/api/portal`, {
      headers: { Cookie: user.cookie, 'Sec-Fetch-Mode': 'navigate' },
    }),
  )
  expect(browser).toMatchObject({
    status: 303,
    location: '/dashboard/settings/billing?notice=portal-failed',
  })
  expect(await sessionCount(user.id)).toBe(1)
})

describe('a token refresh', () => {
  it('refused with a 429: 503, the cookies and the session are kept, and work afterwards', async () => {
    const user = await createSignedInUser(app)
    const { cookie, session } = await expireSession(user.cookie)
    app.stack.supabase.addFault({ method: 'POST', path: '/auth/v1/token', status: 429, count: 1 })
    const refused = await dashboardPage(cookie)
    expect(refused.status).toBe(503)
    expect(refused.headers.getSetCookie()).toEqual([])
    expect(await isRevoked(app, session.refresh_token)).toBe(false)
    expect(await sessionCount(user.id)).toBe(1)

    const again = await dashboardPage(cookie)
    expect(again.status).toBe(200)
    expect(readSession(setCookies(again.headers))?.user.id).toBe(user.id)
  })

  it('failing over and over (5xx): 503 within the session check time, not auth-js’s half minute of retries', async () => {
    const user = await createSignedInUser(app)
    const { cookie } = await expireSession(user.cookie)
    app.stack.supabase.addFault({ method: 'POST', path: '/auth/v1/token', status: 503, count: 100 })
    const failed = await timed(dashboardPage(cookie))
    expect(failed.value.status).toBe(503)
    expect(failed.value.headers.getSetCookie()).toEqual([])
    expect(failed.ms).toBeLessThan(6_000)
    app.stack.supabase.clearFaults()
    expect((await dashboardPage(cookie)).status).toBe(200)
  })

  it('a definite refusal (the refresh token is gone) signs the browser out', async () => {
    const user = await createSignedInUser(app)
    const { cookie, session } = await expireSession(user.cookie)
    await adminClient(app).auth.admin.signOut(session.access_token, 'global')
    const answer = await dashboardPage(cookie)
    expect(answer).toMatchObject({
      status: 302,
      location: '/sign-in?redirectTo=%2Fdashboard&notice=sign-in-to-continue',
    })
  })
})

it('the auth server down altogether: a valid token is still verified (with the last signing keys) and its pages served', async () => {
  const warm = await createSignedInUser(app)
  expect((await dashboardPage(warm.cookie)).status).toBe(200)
  const user = await createSignedInUser(app)
  // 11 minutes on, every copy of the keys is due for a new fetch (auth-js's would then fail
  // the token), which fails like every other auth call; the token is still valid (15 min).
  vi.useFakeTimers({ now: Date.now() + 11 * 60_000, toFake: ['Date'] })
  try {
    app.stack.supabase.addFault({ path: '/auth/v1/', status: 503, count: 1_000 })
    const page = await dashboardPage(user.cookie)
    expect(page.status).toBe(200)
    expect(page.data).toMatchObject({ user: { id: user.id } })
    // An action still needs the auth server's word: it fails closed.
    expect((await changeEmail(user)).status).toBe(503)
    expect(await sessionCount(user.id)).toBe(1)
  } finally {
    vi.useRealTimers()
  }
})

describe('the per-request session check cannot be made', () => {
  it('a page view of a session checked moments ago is served; an action fails closed', async () => {
    const user = await createSignedInUser(app)
    expect((await dashboardPage(user.cookie)).status).toBe(200)
    app.stack.supabase.addFault({ path: SESSION_CHECK, status: 503, count: 2 })
    const page = await dashboardPage(user.cookie)
    expect(page.status).toBe(200)
    expect(page.data).toMatchObject({ user: { id: user.id } })
    const action = await changeEmail(user)
    expect(action.status).toBe(503)
    expect(action.headers.get('retry-after')).toBe('5')
  })

  it('a session not checked within the grace period gets 503', async () => {
    const user = await createSignedInUser(app)
    app.stack.supabase.addFault({ path: SESSION_CHECK, status: 500, count: 1 })
    expect((await dashboardPage(user.cookie)).status).toBe(503)

    expect((await dashboardPage(user.cookie)).status).toBe(200)
    sessionConfirmations.clear() // as when the grace period has passed
    app.stack.supabase.addFault({ path: SESSION_CHECK, status: 500, count: 1 })
    expect((await dashboardPage(user.cookie)).status).toBe(503)
  })

  it('no answer in time: the page waits for the check timeout, then is served', async () => {
    const user = await createSignedInUser(app)
    expect((await dashboardPage(user.cookie)).status).toBe(200)
    app.stack.supabase.addFault({ path: SESSION_CHECK, delayMs: 8_000, count: 1 })
    const page = await timed(dashboardPage(user.cookie))
    expect(page.value.status).toBe(200)
    expect(page.ms).toBeGreaterThan(4_500)
    expect(page.ms).toBeLessThan(7_000)
  })

  it('"signed out everywhere" is refused at once, and not served from memory afterwards', async () => {
    const user = await createSignedInUser(app)
    expect((await dashboardPage(user.cookie)).status).toBe(200)
    const answer = await callRoute(
      account.action,
      formPost(`${app.url}${ACCOUNT}`, user.cookie, { intent: 'sign-out-everywhere' }),
    )
    expect(answer.status).toBe(303)
    const refused = await dashboardPage(user.cookie)
    expect(refused.status).toBe(302)
    app.stack.supabase.addFault({ path: SESSION_CHECK, status: 503, count: 1 })
    expect((await dashboardPage(user.cookie)).status).toBe(503)
  })
})
