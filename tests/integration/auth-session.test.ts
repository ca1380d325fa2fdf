import { afterEach, describe, expect, it, vi } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import { resetEnvForTests } from '../../app/env.server'
import { logger } from '../../app/lib/server/logger.server'
import * as root from '../../app/root'
import * as dashboardLayout from '../../app/routes/dashboard'
import * as dashboardIndex from '../../app/routes/dashboard._index'
import * as forgotPassword from '../../app/routes/forgot-password'
import * as resetPassword from '../../app/routes/reset-password'
import * as signInPage from '../../app/routes/sign-in'
import * as signUpPage from '../../app/routes/sign-up'
import { startSupabaseEmulator } from '../local-stack/supabase'
import { PASSWORD } from './accounts'
import {
  appRequest,
  askedForLinkCookie,
  callAt,
  callRoute,
  clearedCookies,
  cookieMap,
  expireSession,
  hashedToken,
  isRevoked,
  readSession,
  SESSION_COOKIE,
  setCookies,
} from './auth-support'
import {
  adminClient,
  createSignedInUser,
  createUser,
  mergeCookies,
  newEmail,
  testAppForFile,
} from './harness'
import { userApiClient } from './settings-support'

// Counts the Supabase clients the app makes (each decodes the session cookie on first use).
const ssrClients = vi.hoisted(() => ({ made: 0 }))
vi.mock('@supabase/ssr', async (importOriginal) => {
  const ssr = await importOriginal<typeof import('@supabase/ssr')>()
  const create = ssr.createServerClient as (...args: unknown[]) => unknown
  return {
    ...ssr,
    createServerClient: (...args: unknown[]) => {
      ssrClients.made += 1
      return create(...args)
    },
  }
})

const app = testAppForFile()

afterEach(() => {
  vi.restoreAllMocks()
})

const withCookies = (cookie: string, headers: Headers) =>
  mergeCookies(cookie, new Response(null, { headers }))

async function post(path: string, cookie = '') {
  const response = await fetch(`${app.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'price_id=price_pro_monthly',
  })
  return { response, status: response.status, body: (await response.json()) as unknown }
}

describe('protected pages and anonymous-only pages', () => {
  it('a signed-out visitor is sent to sign-in with the way back in redirectTo', async () => {
    const response = await fetch(`${app.url}/dashboard/settings/billing?page=2`, {
      redirect: 'manual',
    })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(
      '/sign-in?redirectTo=%2Fdashboard%2Fsettings%2Fbilling%3Fpage%3D2&notice=sign-in-to-continue',
    )
    for (const route of [dashboardLayout, dashboardIndex]) {
      const outcome = await callAt(app, route.loader, '/dashboard')
      expect(outcome).toMatchObject({ status: 302, data: '' })
      expect(outcome.headers.get('Location')).toBe(
        '/sign-in?redirectTo=%2Fdashboard&notice=sign-in-to-continue',
      )
    }
  })

  it('a forged or tampered session cookie is not a session', async () => {
    const user = await createSignedInUser(app)
    const session = readSession(cookieMap(user.cookie))!
    const [header, , signature] = session.access_token.split('.')
    const payload = JSON.parse(
      Buffer.from(session.access_token.split('.')[1], 'base64url').toString(),
    ) as Record<string, unknown>
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...payload, sub: '00000000-0000-0000-0000-000000000001' })).toString('base64url')}.${signature}`
    const tampered = `${SESSION_COOKIE}=base64-${Buffer.from(JSON.stringify({ ...session, access_token: forged })).toString('base64url')}`
    for (const cookie of [tampered, `${SESSION_COOKIE}=garbage`]) {
      const outcome = await callAt(app, dashboardLayout.loader, '/dashboard', { cookie })
      expect(outcome.status).toBe(302)
      expect(outcome.headers.get('Location')).toBe(
        '/sign-in?redirectTo=%2Fdashboard&notice=sign-in-to-continue',
      )
    }
  })

  it('the sign-in page keeps a safe redirectTo and drops a hostile one', async () => {
    const safe = await callAt(
      app,
      signInPage.loader,
      '/sign-in?redirectTo=%2Fdashboard%2Fsettings%2Fbilling',
    )
    expect(safe.data).toEqual({
      redirectTo: '/dashboard/settings/billing',
      pageError: null,
      failureReason: null,
      email: '',
      // The form's HTML constraints, read from its schema by the loader: the password is
      // asked for by "Sign in" only, not by "Email me a sign-in link".
      constraint: {
        email: { required: true, maxLength: 254 },
        password: { required: false, maxLength: 72 },
        redirectTo: { required: false, maxLength: 512 },
        intent: { required: false },
      },
    })
    const hostile = await callAt(
      app,
      signInPage.loader,
      '/sign-in?redirectTo=%2F%5Cevil.example&error=auth_failed',
    )
    expect(hostile.data).toEqual({
      redirectTo: '/dashboard',
      pageError: expect.stringMatching(/isn't valid or has expired/) as unknown,
      failureReason: null,
      email: '',
      constraint: (safe.data as { constraint: unknown }).constraint,
    })
  })

  it('signing in returns the visitor to redirectTo with the session cookies', async () => {
    const user = await createSignedInUser(app)
    const outcome = await callAt(app, signInPage.action, '/sign-in', {
      form: { email: user.email, password: PASSWORD, redirectTo: '/dashboard/settings/billing' },
    })
    expect([outcome.status, outcome.headers.get('Location')]).toEqual([
      303,
      '/dashboard/settings/billing',
    ])
    expect(readSession(setCookies(outcome.headers))?.user.id).toBe(user.id)
    // No browser code reads the session: it is HttpOnly, and SameSite=Lax.
    const sessionCookies = outcome.headers
      .getSetCookie()
      .filter((cookie) => cookie.startsWith('sb-localhost-auth-token'))
    expect(sessionCookies.length).toBeGreaterThan(0)
    for (const cookie of sessionCookies) {
      expect(cookie).toMatch(/; HttpOnly/i)
      expect(cookie).toMatch(/; SameSite=Lax/i)
    }
  })

  it.each([
    ['/sign-in', signInPage],
    ['/sign-up', signUpPage],
    ['/forgot-password', forgotPassword],
  ])('a signed-in visitor on %s goes to /dashboard', async (path, route) => {
    const user = await createSignedInUser(app)
    const outcome = await callAt(app, route.loader, path, { cookie: user.cookie })
    expect([outcome.status, outcome.headers.get('Location')]).toEqual([302, '/dashboard'])
  })
})

it('a signed-in page load whose session this process has verified: reads as the user without a Supabase client, and still asks whether the session exists', async () => {
  const [user, other] = [await createSignedInUser(app), await createSignedInUser(app)]
  const navigation = () => appRequest(app, '/dashboard', { cookie: user.cookie })
  // The first load verifies the token (one client: its cookies are decoded and checked)
  // against the signing keys, without asking the auth server.
  const first = ssrClients.made
  const before = app.stack.supabase.countsByPath()
  await callRoute(dashboardLayout.loader, navigation())
  expect(ssrClients.made).toBe(first + 1)

  const made = ssrClients.made
  const restBefore = app.stack.supabase.restCountsByPath()
  const request = navigation()
  const outcomes = await Promise.all(
    [root, dashboardLayout, dashboardIndex].map((route) => callRoute(route.loader, request)),
  )
  expect(outcomes.map((outcome) => outcome.status)).toEqual([200, 200, 200])
  expect(outcomes[1].headers.getSetCookie()).toEqual([])
  expect(outcomes[1].data).toMatchObject({
    user: { id: user.id, email: user.email },
    profile: { avatarUrl: null },
  })
  expect(outcomes[2].data).toMatchObject({ email: user.email, subscription: null })
  expect(ssrClients.made).toBe(made)
  const after = app.stack.supabase.countsByPath()
  const restAfter = app.stack.supabase.restCountsByPath()
  const rest = (path: string) => (restAfter[path] ?? 0) - (restBefore[path] ?? 0)
  // The session check once for the navigation and, sent with it, the one read the layout
  // and the page share (profile and subscription); no auth-server call, first load included.
  expect(['session_is_active', 'account_summary'].map((rpc) => rest(`/rpc/${rpc}`))).toEqual([1, 1])
  expect(rest('/user_profiles') + rest('/user_subscriptions')).toBe(0)
  expect([after['/user'], after['/token']]).toEqual([before['/user'], before['/token']])
  // Other cookies are another session: verified from scratch.
  await callAt(app, dashboardLayout.loader, '/dashboard', { cookie: other.cookie })
  expect(ssrClients.made).toBe(made + 1)
})

describe('an expired access token is refreshed and the new cookies reach the browser', () => {
  async function expectRefreshed(headers: Headers, old: { refresh_token: string }) {
    const fresh = readSession(setCookies(headers))
    expect(fresh).not.toBeNull()
    expect(fresh!.refresh_token).not.toBe(old.refresh_token)
    expect(fresh!.expires_at).toBeGreaterThan(Date.now() / 1000 + 600)
    expect(await isRevoked(app, old.refresh_token)).toBe(true)
    return fresh!
  }

  it('on a loader answer, and the new cookies then work without another refresh', async () => {
    const user = await createSignedInUser(app)
    const { cookie, session } = await expireSession(user.cookie)
    const outcome = await callAt(app, dashboardLayout.loader, '/dashboard', { cookie })
    expect(outcome.status).toBe(200)
    expect(outcome.data).toMatchObject({ user: { id: user.id, email: user.email } })
    await expectRefreshed(outcome.headers, session)

    const again = await callAt(app, dashboardLayout.loader, '/dashboard', {
      cookie: withCookies(cookie, outcome.headers),
    })
    expect(again.status).toBe(200)
    expect(again.headers.getSetCookie()).toEqual([])
  })

  it('when the page loaders of one request refresh at the same time', async () => {
    const user = await createSignedInUser(app)
    const { cookie } = await expireSession(user.cookie)
    const request = () => appRequest(app, '/dashboard', { cookie })
    const outcomes = await Promise.all([
      callRoute(root.loader, request()),
      callRoute(dashboardLayout.loader, request()),
      callRoute(dashboardIndex.loader, request()),
    ])
    expect(outcomes.map((outcome) => outcome.status)).toEqual([200, 200, 200])
    for (const outcome of outcomes) {
      const fresh = readSession(setCookies(outcome.headers))
      expect(fresh?.user.id).toBe(user.id)
    }
  })

  it('on an action answer (POST /api/customer_portal over HTTP)', async () => {
    const user = await createSignedInUser(app)
    const { cookie, session } = await expireSession(user.cookie)
    const result = await post('/api/customer_portal', cookie)
    expect(result.status).toBe(404)
    expect(result.body).toEqual({ error: 'No subscription found' })
    await expectRefreshed(result.response.headers, session)
  })

  it('on a page action, both when the form is refused and when it succeeds', async () => {
    // A user with no other session: /reset-password takes only one opened by a recovery link.
    const user = await createUser(app, newEmail('reset-refresh'))
    const token = await hashedToken(app, 'recovery', user.email)
    const opened = await fetch(`${app.url}/auth/callback?token_hash=${token}&type=recovery`, {
      redirect: 'manual',
      headers: { Cookie: await askedForLinkCookie(app, user.email) },
    })
    expect(opened.headers.get('Location')).toBe('/reset-password')
    const { cookie, session } = await expireSession(mergeCookies('', opened))
    const refused = await callAt(app, resetPassword.action, '/reset-password', {
      cookie,
      form: { password: 'a-new-passphrase', confirmPassword: 'something-else' },
    })
    expect(refused.status).toBe(400)
    const fresh = await expectRefreshed(refused.headers, session)

    const { cookie: expiredAgain } = await expireSession(withCookies(cookie, refused.headers))
    const saved = await callAt(app, resetPassword.action, '/reset-password', {
      cookie: expiredAgain,
      form: { password: 'a-new-passphrase', confirmPassword: 'a-new-passphrase' },
    })
    expect([saved.status, saved.headers.get('Location')]).toEqual([
      303,
      '/dashboard?notice=password-updated',
    ])
    const after = await expectRefreshed(saved.headers, fresh)
    // One refresh per request: the cookies carry the session's only live refresh token.
    const { rows } = await app.stack.database.query<{ token: string }>(
      `select token from auth.refresh_tokens where user_id = $1 and not revoked`,
      [user.id],
    )
    expect(rows.map((row) => row.token)).toEqual([after.refresh_token])
    const signIn = await callAt(app, signInPage.action, '/sign-in', {
      form: { email: user.email, password: 'a-new-passphrase' },
    })
    expect(signIn.status).toBe(303)
  })

  it('on a redirect (a signed-in visitor on /sign-in)', async () => {
    const user = await createSignedInUser(app)
    const { cookie, session } = await expireSession(user.cookie)
    const outcome = await callAt(app, signInPage.loader, '/sign-in', { cookie })
    expect([outcome.status, outcome.headers.get('Location')]).toEqual([302, '/dashboard'])
    await expectRefreshed(outcome.headers, session)
  })

  it('a session ended elsewhere: redirect to sign-in and the stale cookies are cleared', async () => {
    const user = await createSignedInUser(app)
    const { cookie, session } = await expireSession(user.cookie)
    const { error } = await adminClient(app).auth.admin.signOut(session.access_token, 'global')
    expect(error).toBeNull()
    const outcome = await callAt(app, dashboardLayout.loader, '/dashboard', { cookie })
    expect(outcome.status).toBe(302)
    expect(outcome.headers.get('Location')).toBe(
      '/sign-in?redirectTo=%2Fdashboard&notice=sign-in-to-continue',
    )
    expect(clearedCookies(outcome.headers)).toContain(SESSION_COOKIE)
  })
})

describe('auth page actions say clearly what went wrong', () => {
  function signInWith(email: string, password: string) {
    return callAt(app, signInPage.action, '/sign-in', {
      form: { intent: 'password', email, password },
    })
  }
  function signUpWith(email: string, password: string) {
    return callAt(app, signUpPage.action, '/sign-up', { form: { email, password } })
  }

  it('sign-in: a wrong password or an unknown email, without saying which', async () => {
    const user = await createSignedInUser(app)
    for (const outcome of [
      await signInWith(user.email, 'not-the-password'),
      await signInWith(newEmail('nobody'), PASSWORD),
    ]) {
      expect(outcome.status).toBe(400)
      expect(outcome.data).toMatchObject({
        intent: 'password',
        formError: 'That email and password do not match. Check them and try again.',
      })
      expect(JSON.stringify(outcome.data)).not.toContain('not-the-password')
      expect(readSession(setCookies(outcome.headers))).toBeNull()
    }
  })

  it('sign-in: an unconfirmed email is told to confirm first and offered the confirmation again', async () => {
    const email = newEmail('unconfirmed')
    await createUser(app, email, { confirmed: false })
    const outcome = await signInWith(email, PASSWORD)
    expect(outcome.status).toBe(400)
    expect(outcome.data).toMatchObject({
      formError:
        'Please confirm your email address first: open the link in the email we sent you, or send the confirmation again.',
      unconfirmedEmail: email,
    })
    // A wrong password reveals nothing about the account's state.
    const wrong = await signInWith(email, 'not-the-password')
    expect(wrong.data).toMatchObject({ unconfirmedEmail: null })
  })

  /** What a sign-up answers, in the form a stranger can observe it. */
  async function observedSignUp(email: string) {
    const outcome = await signUpWith(email, 'another-good-password')
    return {
      status: outcome.status,
      location: outcome.headers.get('Location')?.replace(encodeURIComponent(email), '<email>'),
      // Cookie names, with the per-flow random part of a PKCE verifier's name left out.
      cookies: [...setCookies(outcome.headers).keys()]
        .map((name) => name.replace(/[0-9a-f]{32}/, '<flow>'))
        .sort(),
    }
  }

  it.each([
    ['email confirmation on: Supabase hides the account (identities: [])', true],
    ['email confirmation off: Supabase says user_already_exists', false],
  ])(
    'sign-up answers the same whether or not the address has an account (%s); the mail says what happened',
    async (_label, obfuscate) => {
      const user = await createSignedInUser(app)
      const auth = await startSupabaseEmulator({
        database: app.stack.database,
        siteUrl: app.url,
        obfuscateExistingSignups: obfuscate,
      })
      const realUrl = process.env.SUPABASE_URL
      process.env.SUPABASE_URL = auth.url
      resetEnvForTests()
      try {
        const fresh = newEmail('fresh')
        const forNew = await observedSignUp(fresh)
        const forTaken = await observedSignUp(user.email)
        expect(forNew).toMatchObject({ status: 303, location: '/sign-up/confirm?email=<email>' })
        expect(forTaken).toEqual(forNew)
        // The newcomer is asked to confirm; the account holder gets a sign-in link saying why
        // (the auth server is asked after the answer, the same work for both).
        await mailRequestsSettled()
        expect((await auth.inbox.latestFor(fresh))?.kind).toBe('signup')
        expect((await auth.inbox.latestFor(user.email))?.kind).toBe('magiclink')
        // Nothing about the existing account changed: its password still works.
        await expect(userApiClient(app, user.email)).resolves.toBeTruthy()
      } finally {
        process.env.SUPABASE_URL = realUrl
        resetEnvForTests()
        await auth.close()
      }
    },
  )

  it('sign-up: a weak password is refused by the form; one the auth server refuses after the answer is logged', async () => {
    const short = await signUpWith(newEmail('weak'), 'short')
    expect(short.status).toBe(400)
    expect(short.data).toMatchObject({
      result: { error: { password: ['Use at least 8 characters'] } },
    })

    // The emulator, like GoTrue's default, only refuses passwords under 6 characters; a
    // project with a stricter policy answers 422 weak_password for longer ones.
    const realFetch = globalThis.fetch
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      if (new URL(url).pathname !== '/auth/v1/signup') return realFetch(input, init)
      return Response.json(
        {
          code: 'weak_password',
          message: 'Password should contain at least one character of each: digits.',
          weak_password: { reasons: ['characters'] },
        },
        { status: 422, headers: { 'X-Supabase-Api-Version': '2024-01-01' } },
      )
    })
    // The form's rules are the project's (tests/config/password-rules.test.ts), so this only
    // happens when they drift apart: the answer is the same as ever, the refusal is logged.
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {})
    const email = newEmail('weak')
    const strict = await signUpWith(email, 'only-letters-here')
    expect(strict.status).toBe(303)
    await mailRequestsSettled()
    expect(warn).toHaveBeenCalledWith(
      { code: 'weak_password' },
      'sign-up not completed at the auth server',
    )
    vi.restoreAllMocks()
    const { data } = await adminClient(app).auth.admin.listUsers()
    expect(data.users.map((u) => u.email)).not.toContain(email)
  })
})

describe('API routes answer 401 with a generic message', () => {
  it.each([
    ['/api/checkout_sessions', { error: 'Authentication required' }],
    ['/api/customer_portal', { error: 'Unauthorized' }],
  ])('%s', async (path, expected) => {
    const user = await createSignedInUser(app)
    const ended = await expireSession(user.cookie)
    await adminClient(app).auth.admin.signOut(ended.session.access_token, 'global')
    for (const cookie of ['', `${SESSION_COOKIE}=garbage`, ended.cookie]) {
      const result = await post(path, cookie)
      expect(result.status).toBe(401)
      expect(result.body).toEqual(expected)
      expect(result.response.headers.get('Cache-Control')).toMatch(/no-store/)
    }
  })
})
