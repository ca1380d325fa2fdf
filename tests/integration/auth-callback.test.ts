import { randomUUID } from 'node:crypto'

import { describe, expect, it } from 'vitest'

import { createSupabaseServerClient } from '../../app/auth/session.server'
import { noticeByKey } from '../../app/lib/pages/notices'
import * as confirmPage from '../../app/routes/auth.confirm'
import * as dashboardLayout from '../../app/routes/dashboard'
import * as dashboardOverview from '../../app/routes/dashboard._index'
import * as resetPassword from '../../app/routes/reset-password'
import * as signInPage from '../../app/routes/sign-in'
import * as signUpPage from '../../app/routes/sign-up'
import { value } from '../setup/database'
import { PASSWORD } from './accounts'
import {
  appRequest,
  askedForLinkCookie,
  authorizeOnConsentPage,
  callAt,
  followVerifyLink,
  hashedToken,
  latestAuthMail,
  readSession,
  SESSIONS_OF,
  setCookies,
} from './auth-support'
import {
  adminClient,
  createUser,
  mergeCookies,
  newEmail,
  testAppForFile,
  waitOutMailFrequency,
} from './harness'

// GET /auth/callback with real tokens from the emulator: the spec's rules 1 to 4.
const app = testAppForFile()
const FAILED = '/sign-in?error=auth_failed'

/** GET /auth/callback?<query> with the browser's cookies; never follows the redirect. */
async function callback(query: string | URLSearchParams, cookie = '') {
  const response = await fetch(`${app.url}/auth/callback?${query}`, {
    redirect: 'manual',
    headers: cookie ? { Cookie: cookie } : {},
  })
  return {
    response,
    status: response.status,
    location: response.headers.get('Location'),
    body: await response.text(),
    session: readSession(setCookies(response.headers)),
  }
}

/** Who the dashboard says is signed in with these cookies (null: redirected to sign-in). */
async function dashboardUser(cookie: string) {
  const outcome = await callAt(app, dashboardLayout.loader, '/dashboard', { cookie })
  if (outcome.status !== 200) return null
  return (outcome.data as { user: { id: string; email: string } }).user
}

/** A PKCE link (the code flow, its verifier cookie) for `email`, as a browser's own client asks. */
async function pkceLink(
  kind: 'magic-link' | 'recovery' | 'signup',
  email: string,
  redirectTo = '/dashboard',
) {
  const { supabase, headers } = createSupabaseServerClient(appRequest(app, '/sign-in'))
  const emailRedirectTo = `${app.url}/auth/callback?next=${encodeURIComponent(redirectTo)}`
  const { error } =
    kind === 'recovery'
      ? await supabase.auth.resetPasswordForEmail(email, { redirectTo: emailRedirectTo })
      : kind === 'signup'
        ? await supabase.auth.signUp({ email, password: PASSWORD, options: { emailRedirectTo } })
        : await supabase.auth.signInWithOtp({ email, options: { emailRedirectTo } })
  expect(error).toBeNull()
  const cookie = mergeCookies('', new Response(null, { headers }))
  expect(cookie).toMatch(/sb-localhost-auth-token-code-verifier=/)
  const mail = await app.stack.supabase.inbox.latestFor(email)
  const target = await followVerifyLink(mail!.verifyUrl!)
  expect(`${target.origin}${target.pathname}`).toBe(`${app.url}/auth/callback`)
  return { target, cookie }
}

function magicLinkCode(email: string, redirectTo = '/dashboard') {
  return pkceLink('magic-link', email, redirectTo)
}

function expectRedirect(result: Awaited<ReturnType<typeof callback>>, location: string) {
  expect(result).toMatchObject({ status: 302, location: location })
  expect(result.body).toBe('')
  expect(result.response.headers.get('Cache-Control')).toBe('no-store')
}

describe('rule 1: a PKCE code is exchanged for a session', () => {
  it('magic link: goes to the safe next path, signed in as that user', async () => {
    const user = await createUser(app)
    const { target, cookie } = await magicLinkCode(user.email, '/dashboard/settings/billing?page=2')
    expect(target.searchParams.get('code')).toBeTruthy()
    const result = await callback(target.searchParams, cookie)
    expectRedirect(result, '/dashboard/settings/billing?page=2')
    expect(result.session?.user.id).toBe(user.id)
    expect(await dashboardUser(mergeCookies(cookie, result.response))).toEqual({
      id: user.id,
      email: user.email,
    })
  })

  it.each([
    [
      'type=recovery goes to /reset-password, whatever next says',
      'recovery',
      'recovery',
      '/pricing',
    ],
    ['a recovery code without a type still lands on /reset-password', 'recovery', null, undefined],
    ['no type and no next: /dashboard', 'magic-link', null, null],
  ] as const)('%s', async (_label, kind, type, next) => {
    const user = await createUser(app)
    const { target, cookie } = await pkceLink(kind, user.email, '/reset-password')
    expect(target.searchParams.get('type')).toBeNull()
    if (type) target.searchParams.set('type', type)
    if (next) target.searchParams.set('next', next)
    if (next === null) target.searchParams.delete('next')
    const result = await callback(target.searchParams, cookie)
    expectRedirect(result, kind === 'recovery' ? '/reset-password' : '/dashboard')
    expect(result.session?.user.id).toBe(user.id)
  })

  it('type=signup goes to /dashboard and the email is confirmed', async () => {
    // A PKCE sign-up as a browser's own client makes it (the app's sign-up asks the auth
    // server after its answer, so its links carry a token hash instead).
    const email = newEmail('signup')
    const { target, cookie } = await pkceLink('signup', email, '/pricing')
    target.searchParams.set('type', 'signup')
    const result = await callback(target.searchParams, cookie)
    expectRedirect(result, '/dashboard')
    const { data } = await adminClient(app).auth.admin.getUserById(result.session!.user.id)
    expect(data.user?.email).toBe(email)
    expect(data.user?.email_confirmed_at).toBeTruthy()
  })

  it('OAuth through the local consent page signs in (and creates) the GitHub user', async () => {
    const email = newEmail('oauth')
    const started = await callAt(app, signInPage.action, '/sign-in', {
      form: { intent: 'oauth', redirectTo: '/pricing' },
    })
    expect(started.status).toBe(303)
    const authorize = new URL(started.headers.get('Location')!)
    expect(authorize.pathname).toBe('/auth/v1/authorize')
    expect(authorize.searchParams.get('provider')).toBe('github')
    const cookie = mergeCookies('', new Response(null, { headers: started.headers }))
    const target = await authorizeOnConsentPage(authorize.toString(), email)
    const result = await callback(target.searchParams, cookie)
    expectRedirect(result, '/pricing')
    const { data } = await adminClient(app).auth.admin.getUserById(result.session!.user.id)
    expect(data.user?.email).toBe(email)
    expect(data.user?.identities?.map((identity) => identity.provider)).toEqual(['github'])
  })
})

describe('rule 2: token_hash and type are verified', () => {
  it.each([
    { type: 'recovery', next: '/pricing', location: '/reset-password' },
    { type: 'signup', next: '/pricing', location: '/dashboard' },
    { type: 'email', next: '/pricing', location: '/dashboard' },
    { type: 'magiclink', next: '/pricing?plan=pro', location: '/pricing?plan=pro' },
    { type: 'magiclink', next: null, location: '/dashboard' },
    {
      type: 'invite',
      next: '/dashboard/settings/billing',
      location: '/dashboard/settings/billing',
    },
  ] as const)('type=$type, next=$next -> $location', async ({ type, next, location }) => {
    const email = newEmail(type)
    if (type !== 'signup' && type !== 'invite') await createUser(app, email)
    const token = await hashedToken(app, type === 'email' ? 'magiclink' : type, email)
    const query = new URLSearchParams({ token_hash: token, type })
    if (next) query.set('next', next)
    const result = await callback(query, await askedForLinkCookie(app, email))
    expectRedirect(result, location)
    expect(result.session?.user.email).toBe(email)
    const { data } = await adminClient(app).auth.admin.getUserById(result.session!.user.id)
    expect(data.user?.email_confirmed_at).toBeTruthy()
    // Only a confirmation sets the "email confirmed" notice.
    if (type === 'magiclink')
      expect(mergeCookies('', result.response)).not.toMatch(/email_confirmed=/)
  })

  it('the email link of a real sign-up (token_hash in the app link) confirms, signs in, and the dashboard says so once', async () => {
    const email = newEmail('mail-link')
    const started = await callAt(app, signUpPage.action, '/sign-up', {
      form: { email, password: PASSWORD },
    })
    // The browser that signed up carries the mark of having asked for this link.
    const browser = mergeCookies('', new Response(null, { headers: started.headers }))
    expect(browser).toMatch(/auth_flow=/)
    const mail = await latestAuthMail(app, email, 'signup')
    const link = new URL(mail!.link!)
    expect(`${link.origin}${link.pathname}`).toBe(`${app.url}/auth/callback`)
    const result = await callback(link.searchParams, browser)
    expectRedirect(result, '/dashboard')
    expect(result.session?.user.email).toBe(email)
    const signedIn = mergeCookies(browser, result.response)
    expect(await dashboardUser(signedIn)).toMatchObject({ email })
    expect(signedIn).toMatch(/email_confirmed=/)
    const overview = (cookie: string) =>
      callAt(app, dashboardOverview.loader, '/dashboard', { cookie })
    const first = await overview(signedIn)
    expect((first.data as { confirmedNotice: { text: string } | null }).confirmedNotice?.text).toBe(
      noticeByKey('email-confirmed').text,
    )
    // Said once: the answer forgets it.
    const after = mergeCookies(signedIn, new Response(null, { headers: first.headers }))
    expect(after).not.toMatch(/email_confirmed=/)
    expect(
      ((await overview(after)).data as { confirmedNotice: unknown }).confirmedNotice,
    ).toBeNull()
  })
})

describe('rule 3: any failure goes to /sign-in?error=auth_failed', () => {
  /** By default from a browser that asked for a link (else a token hash asks to confirm). */
  async function expectFailed(query: string | URLSearchParams, cookie?: string) {
    const result = await callback(
      query,
      cookie ?? (await askedForLinkCookie(app, 'someone@example.com')),
    )
    expectRedirect(result, FAILED)
    expect(result.session).toBeNull()
    return result
  }

  it.each([
    ['nothing at all', ''],
    ['only next', 'next=%2Fpricing'],
    ['an unknown code', `code=${randomUUID()}`],
    ['a malformed code', 'code=%00%ff'],
    ['an unknown token hash', 'token_hash=deadbeef&type=magiclink'],
    ['a token hash without a type', 'token_hash=deadbeef'],
    ['a type without a token hash', 'type=signup'],
    ['a provider refusal', 'error=access_denied&error_code=provider_denied'],
    ['a failure with next', 'token_hash=deadbeef&type=magiclink&next=%2Fpricing'],
  ])('%s', async (_label, query) => {
    await expectFailed(query)
  })

  it('a used code, a code without its verifier, and an expired code', async () => {
    const user = await createUser(app)
    const first = await magicLinkCode(user.email)
    expectRedirect(await callback(first.target.searchParams, first.cookie), '/dashboard')
    await expectFailed(first.target.searchParams, first.cookie)

    await waitOutMailFrequency(app, user.email)
    const second = await magicLinkCode(user.email)
    await expectFailed(second.target.searchParams) // another browser: no verifier cookie

    await waitOutMailFrequency(app, user.email)
    const third = await magicLinkCode(user.email)
    await app.stack.database.query(
      `update auth.flow_state set created_at = now() - interval '1 hour',
         auth_code_issued_at = now() - interval '1 hour' where auth_code = $1`,
      [third.target.searchParams.get('code')],
    )
    await expectFailed(third.target.searchParams, third.cookie)
  })

  it('a used, an expired, a wrong-type and an unknown-type token hash', async () => {
    const user = await createUser(app)
    const asked = await askedForLinkCookie(app, user.email)
    const used = await hashedToken(app, 'magiclink', user.email)
    expectRedirect(await callback(`token_hash=${used}&type=magiclink`, asked), '/dashboard')
    await expectFailed(`token_hash=${used}&type=magiclink`)

    const expired = await hashedToken(app, 'magiclink', user.email)
    await app.stack.database.query(
      `update auth.one_time_tokens set created_at = now() - interval '2 hours' where token_hash = $1`,
      [expired],
    )
    await expectFailed(`token_hash=${expired}&type=magiclink`)

    const recovery = await hashedToken(app, 'recovery', user.email)
    await expectFailed(`token_hash=${recovery}&type=signup`)
    await expectFailed(`token_hash=${recovery}&type=bogus`)
    await expectFailed(`token_hash=${recovery}&type=`)
    // The refused attempts did not use the token up.
    expectRedirect(await callback(`token_hash=${recovery}&type=recovery`, asked), '/reset-password')
  })

  it('a cancelled OAuth consent comes back as a failure', async () => {
    const started = await callAt(app, signInPage.action, '/sign-in', { form: { intent: 'oauth' } })
    const cookie = mergeCookies('', new Response(null, { headers: started.headers }))
    const target = await authorizeOnConsentPage(
      started.headers.get('Location')!,
      'x@example.com',
      'cancel',
    )
    expect(target.searchParams.get('error')).toBe('access_denied')
    await expectFailed(target.searchParams, cookie)
  })
})

describe('rule 4: next never leaves the site', () => {
  const hostile = [
    'https://evil.example/',
    'javascript:alert(1)',
    '///evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/.//evil.example',
    '/%2fevil.example',
    'http:evil.example',
    'evil.example',
    '//evil.example',
    '/\\evil.example',
    '/%2Fevil.example',
    '/%5Cevil.example',
    '/%252F%252Fevil.example',
    '%2F%2Fevil.example',
    '/\n/evil.example',
    ' //evil.example',
    '/\u0000/evil.example',
    '/\u3002evil.example',
    '\uff0f\uff0fevil.example',
    '/..//evil.example',
    '/dashboard/../..//evil.example',
    '/x/..//evil.example',
    `/${'a'.repeat(5000)}`,
  ]

  const cases = hostile.map((next) => [JSON.stringify(next).slice(0, 40), next])
  it.each(cases)('token_hash flow with next=%s goes to /dashboard', async (_label, next) => {
    const user = await createUser(app)
    const token = await hashedToken(app, 'magiclink', user.email)
    const result = await callback(
      new URLSearchParams({ token_hash: token, type: 'magiclink', next }),
      await askedForLinkCookie(app, user.email),
    )
    expectRedirect(result, '/dashboard')
    expect(new URL(result.location!, app.url).origin).toBe(app.url)
  })

  it('code flow: a hostile next is replaced by /dashboard', async () => {
    const user = await createUser(app)
    const { target, cookie } = await magicLinkCode(user.email)
    target.searchParams.set('next', '//evil.example/%2e%2e')
    expectRedirect(await callback(target.searchParams, cookie), '/dashboard')
  })

  it.each([
    ['/pricing#plans', '/pricing#plans'],
    ['/a/../pricing', '/pricing'],
  ])('a same-site path %j goes to %j', async (next, location) => {
    const user = await createUser(app)
    const token = await hashedToken(app, 'magiclink', user.email)
    const result = await callback(
      new URLSearchParams({ token_hash: token, type: 'magiclink', next }),
      await askedForLinkCookie(app, user.email),
    )
    expectRedirect(result, location)
  })
})

describe('login CSRF: an emailed link signs in only the browser that asked, or after confirming', () => {
  const confirmPost = (form: Record<string, string>, cookie = '') =>
    callAt(app, confirmPage.action, '/auth/confirm', { cookie, form })

  it('a link opened in a browser that did not ask for it asks first and leaves the token unused', async () => {
    const attacker = await createUser(app)
    const token = await hashedToken(app, 'magiclink', attacker.email)
    // The victim's browser follows a link the attacker asked for (no mark, no cookies).
    const result = await callback(
      new URLSearchParams({ token_hash: token, type: 'magiclink', next: '/pricing' }),
    )
    expect(result.status).toBe(302)
    const confirm = new URL(result.location!, app.url)
    expect(confirm.pathname).toBe('/auth/confirm')
    expect(result.session).toBeNull()
    const page = await callAt(app, confirmPage.loader, `${confirm.pathname}${confirm.search}`)
    expect(page.status).toBe(200)
    expect(page.data).toMatchObject({ tokenHash: token, type: 'magiclink', next: '/pricing' })
    expect(page.data).toMatchObject({ state: { state: 'valid', purpose: 'sign-in' } })
    // Only the person's own click (a same-site POST) uses the link.
    const confirmed = await confirmPost({ token_hash: token, type: 'magiclink', next: '/pricing' })
    expect([confirmed.status, confirmed.headers.get('Location')]).toEqual([303, '/pricing'])
    const cookie = mergeCookies('', new Response(null, { headers: confirmed.headers }))
    expect(await dashboardUser(cookie)).toEqual({ id: attacker.id, email: attacker.email })
  })

  it('a link to another account than the one this browser asked for signs nobody in', async () => {
    const victim = await createUser(app)
    const attacker = await createUser(app)
    const asked = await askedForLinkCookie(app, victim.email)
    const token = await hashedToken(app, 'magiclink', attacker.email)
    const result = await callback(
      new URLSearchParams({ token_hash: token, type: 'magiclink' }),
      asked,
    )
    // The spec's failure location; the reason travels in a cookie beside it.
    expectRedirect(result, FAILED)
    const reason = await callAt(app, signInPage.loader, FAILED, {
      cookie: mergeCookies('', result.response),
    })
    expect(reason.data).toMatchObject({
      failureReason: 'another_account',
      pageError: expect.stringMatching(/^That link was for a different account/) as unknown,
    })
    expect(result.session).toBeNull()
    expect(await dashboardUser(mergeCookies(asked, result.response))).toBeNull()
    // The session the link opened has been ended at the auth server too.
    expect(await value(app.stack.database, SESSIONS_OF, [attacker.id])).toBe(0)
  })

  it('the confirmation page refuses anything that cannot be one of our links', async () => {
    for (const query of [
      '',
      'token_hash=abc&type=bogus',
      'type=magiclink',
      `token_hash=${'a'.repeat(300)}&type=magiclink`,
      'token_hash=%3Cscript%3E&type=magiclink',
    ]) {
      const page = await callAt(app, confirmPage.loader, `/auth/confirm?${query}`)
      expect([page.status, page.headers.get('Location')]).toEqual([302, FAILED])
    }
    const used = await confirmPost({ token_hash: 'deadbeef', type: 'magiclink' })
    expect([used.status, used.headers.get('Location')]).toEqual([303, FAILED])
  })
})

describe('/reset-password: only a session opened by a recovery link sets a password', () => {
  async function signInCookie(email: string, password = PASSWORD) {
    const outcome = await callAt(app, signInPage.action, '/sign-in', {
      form: { email, password, redirectTo: '/dashboard' },
    })
    return outcome.status === 303
      ? mergeCookies('', new Response(null, { headers: outcome.headers }))
      : null
  }
  const newPassword = { password: 'a-new-passphrase-9', confirmPassword: 'a-new-passphrase-9' }

  it('the recovery link opens a session that may choose a new password', async () => {
    const user = await createUser(app)
    const recovery = await hashedToken(app, 'recovery', user.email)
    const asked = await askedForLinkCookie(app, user.email)
    const result = await callback(`token_hash=${recovery}&type=recovery`, asked)
    expectRedirect(result, '/reset-password')
    const cookie = mergeCookies(asked, result.response)
    const page = await callAt(app, resetPassword.loader, '/reset-password', { cookie })
    expect(page.status).toBe(200)
    const saved = await callAt(app, resetPassword.action, '/reset-password', {
      cookie,
      form: newPassword,
    })
    expect([saved.status, saved.headers.get('Location')]).toEqual([
      303,
      '/dashboard?notice=password-updated',
    ])
    expect(await signInCookie(user.email, newPassword.password)).not.toBeNull()
  })

  it('an ordinary signed-in session (a stolen cookie) cannot set a password there', async () => {
    const user = await createUser(app)
    const cookie = await signInCookie(user.email)
    expect(cookie).not.toBeNull()
    const page = await callAt(app, resetPassword.loader, '/reset-password', { cookie: cookie! })
    expect([page.status, page.headers.get('Location')]).toEqual([
      302,
      '/forgot-password?notice=recovery-link-needed',
    ])
    const refused = await callAt(app, resetPassword.action, '/reset-password', {
      cookie: cookie!,
      form: newPassword,
    })
    expect(refused.status).toBe(403)
    expect(refused.data).toMatchObject({
      formError: expect.stringContaining('password-reset email'),
    })
    expect(await signInCookie(user.email)).not.toBeNull()
    expect(await signInCookie(user.email, newPassword.password)).toBeNull()
  })
})
