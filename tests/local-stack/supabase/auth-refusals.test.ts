import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import {
  LOCAL_ANON_KEY,
  LOCAL_PUBLISHABLE_KEY,
  LOCAL_SECRET_KEY,
  LOCAL_SERVICE_ROLE_KEY,
  signAccessToken,
} from './keys'
import {
  locationOf,
  MANY_MAILS,
  raw,
  SITE_URL,
  startTestStack,
  type TestStack,
} from './test-support'

// What the auth server and its gateway refuse, one row per refusal, with GoTrue's status and
// code. The journeys that succeed are the product's integration tests (tests/integration).
let stack: TestStack
beforeAll(async () => {
  // The per-IP limits and the mail budget are not what these rows are about (one client
  // address sends them all): auth-rate-limits.test.ts tests them at their real values.
  const lifted = { tokenRefresh: 1_000_000, verify: 1_000_000, otp: 1_000_000 }
  stack = await startTestStack({ rateLimits: { ...MANY_MAILS.rateLimits, ...lifted } })
})
afterAll(() => stack.close())

const PASSWORD = 'correct-horse-battery'
let next = 0
/** A confirmed user of its own for one row, signed in. */
async function user() {
  const email = `refused${next++}@example.com`
  const id = await stack.createUser(email)
  return { id, email, ...(await stack.signIn(email)) }
}

function tokenHashOf(link: string | null | undefined) {
  return new URL(link!).searchParams.get('token_hash')!
}

/** A user whose session is older than 24 hours, and the reauthentication nonce mailed to them. */
async function agedWithNonce() {
  const signedIn = await user()
  await stack.db.query(
    `update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`,
    [signedIn.id],
  )
  await signedIn.supabase.auth.reauthenticate()
  const nonce = (await stack.emulator.inbox.latestFor(signedIn.email))!.otp!
  return { ...signedIn, nonce }
}

/** A PKCE code from a magic link opened through GET /verify. */
async function pkceCode() {
  const { email } = await user()
  await stack.client().auth.signInWithOtp({ email, options: { emailRedirectTo: `${SITE_URL}/cb` } })
  const mail = await stack.emulator.inbox.latestFor(email)
  return locationOf(await fetch(mail!.verifyUrl!, { redirect: 'manual' })).searchParams.get('code')
}

/** A raw answer as the SDK gives an error: its status and body. */
async function answer(sent: Promise<Response>) {
  const response = await sent
  return { error: { status: response.status, ...(await response.json()) } }
}

async function expiredToken() {
  const now = Math.floor(Date.now() / 1000)
  const claims = { role: 'authenticated', aud: 'authenticated', iat: now - 7200, exp: now - 3600 }
  return signAccessToken({ sub: (await user()).id, ...claims })
}

const admin = () => stack.admin().auth.admin

describe('the auth server refuses, as GoTrue does', () => {
  it.each<[string, () => Promise<{ error: unknown }>, Record<string, unknown>]>([
    [
      'an expired access token',
      async () => stack.client().auth.getUser(await expiredToken()),
      { status: 403, code: 'bad_jwt', message: expect.stringContaining('token is expired') },
    ],
    [
      'a forged access token',
      async () => stack.client().auth.getUser((await expiredToken()).slice(0, -4) + 'AAAA'),
      { status: 403, code: 'bad_jwt' },
    ],
    [
      'a weak password at sign-up',
      () => stack.client().auth.signUp({ email: 'weak@example.com', password: '12345' }),
      { status: 422, code: 'weak_password', reasons: ['length'] },
    ],
    [
      'an invalid email at sign-up',
      () => stack.client().auth.signUp({ email: 'not-an-email', password: 'hunter22' }),
      { status: 400, code: 'validation_failed' },
    ],
    [
      'the same password again',
      async () =>
        (await user()).supabase.auth.updateUser({ password: PASSWORD, current_password: PASSWORD }),
      { status: 422, code: 'same_password' },
    ],
    [
      'a weak new password, before asking for the current one',
      async () => (await user()).supabase.auth.updateUser({ password: 'abc' }),
      { status: 422, code: 'weak_password' },
    ],
    [
      'a new password with a wrong current one',
      async () =>
        (await user()).supabase.auth.updateUser({
          password: 'a-new-password-1',
          current_password: 'not-my-password',
        }),
      { status: 400, code: 'current_password_invalid' },
    ],
    [
      'a nonce older than its hour',
      async () => {
        const { id, supabase, nonce } = await agedWithNonce()
        await stack.db.query(
          `update auth.users set reauthentication_sent_at = now() - interval '2 hours' where id = $1`,
          [id],
        )
        return supabase.auth.updateUser({
          password: 'a-new-p-4',
          nonce,
          current_password: PASSWORD,
        })
      },
      { status: 422, code: 'reauthentication_not_valid' },
    ],
    [
      'a nonce used once already',
      async () => {
        const { supabase, nonce } = await agedWithNonce()
        await supabase.auth.updateUser({ password: 'a-new-p-5', nonce, current_password: PASSWORD })
        return supabase.auth.updateUser({
          password: 'a-new-p-6',
          nonce,
          current_password: 'a-new-p-5',
        })
      },
      { status: 422, code: 'reauthentication_not_valid' },
    ],
    [
      'a wrong code verifier',
      async () =>
        answer(
          raw(stack.emulator, '/auth/v1/token?grant_type=pkce', {
            method: 'POST',
            headers: { apikey: LOCAL_ANON_KEY, 'x-supabase-api-version': '2024-01-01' },
            body: JSON.stringify({ auth_code: await pkceCode(), code_verifier: 'x'.repeat(64) }),
          }),
        ),
      { status: 400, code: 'bad_code_verifier' },
    ],
    [
      'an address that has an account, through the admin API',
      async () => admin().createUser({ email: (await user()).email, password: 'hunter22' }),
      { status: 422, code: 'email_exists' },
    ],
    [
      'a recovery link generated for nobody',
      () => admin().generateLink({ type: 'recovery', email: 'nobody@example.com' }),
      { status: 404, code: 'user_not_found' },
    ],
    [
      'the admin API with the anon key',
      () => stack.client().auth.admin.listUsers(),
      { status: 403, code: 'not_admin' },
    ],
    [
      'an unknown OAuth provider',
      () => answer(raw(stack.emulator, '/auth/v1/authorize?provider=myspace')),
      { status: 400, error_code: 'validation_failed' },
    ],
    [
      'an OAuth sign-in without PKCE (the implicit flow)',
      () => answer(raw(stack.emulator, '/auth/v1/authorize?provider=github')),
      { status: 400, msg: 'the local stand-in supports only the PKCE flow' },
    ],
  ])('%s', async (_name, run, expected) => {
    const { error } = await run()
    expect(error).toMatchObject(expected)
  })

  it('a reused refresh token after the reuse interval ends its session', async () => {
    const { supabase, session } = await user()
    const first = await supabase.auth.refreshSession({ refresh_token: session.refresh_token })
    // A lost response: the parent of the active token gets the active token back.
    const retry = await stack.client().auth.refreshSession({ refresh_token: session.refresh_token })
    expect(retry.data.session?.refresh_token).toBe(first.data.session!.refresh_token)
    const second = await stack.client().auth.refreshSession(first.data.session!)
    await stack.db.query(
      `update auth.refresh_tokens set updated_at = now() - interval '1 minute' where token = $1`,
      [session.refresh_token],
    )
    const reused = await stack
      .client()
      .auth.refreshSession({ refresh_token: session.refresh_token })
    expect(reused.error).toMatchObject({ status: 400, code: 'refresh_token_already_used' })
    const after = await stack.client().auth.refreshSession(second.data.session!)
    expect(after.error).toMatchObject({ status: 400, code: 'refresh_token_not_found' })
    const ended = await stack.client().auth.getUser(second.data.session!.access_token)
    expect(ended.error?.name).toBe('AuthSessionMissingError')
  })

  it('a new password voids pending links and codes', async () => {
    const { id, email, supabase } = await user()
    await stack.client().auth.resetPasswordForEmail(email)
    const recovery = await stack.emulator.inbox.latestFor(email)
    await supabase.auth.updateUser({ email: `new-${email}` })
    const change = await stack.emulator.inbox.latestFor(`new-${email}`)
    await supabase.auth.reauthenticate()
    const changed = await supabase.auth.updateUser({
      password: 'a-new-password-7',
      current_password: PASSWORD,
    })
    expect(changed.error).toBeNull()
    for (const [type, mail] of [
      ['recovery', recovery],
      ['email_change', change],
    ] as const) {
      const verified = await stack
        .client()
        .auth.verifyOtp({ type, token_hash: tokenHashOf(mail?.link) })
      expect(verified.error).toMatchObject({ status: 403, code: 'otp_expired' })
    }
    const { rows } = await stack.db.query(
      'select reauthentication_token, email from auth.users where id = $1',
      [id],
    )
    expect(rows[0]).toEqual({ reauthentication_token: '', email })
  })

  it('a bad emailed link opened at GET /verify redirects with the error', async () => {
    const redirectTo = encodeURIComponent(`${SITE_URL}/auth/callback`)
    const response = await raw(
      stack.emulator,
      `/auth/v1/verify?token=pkce_${'0'.repeat(56)}&type=signup&redirect_to=${redirectTo}`,
    )
    expect(response.status).toBe(303)
    const location = locationOf(response)
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'access_denied',
      error_code: 'otp_expired',
      error_description: 'Email link is invalid or has expired',
    })
    expect(location.hash).toContain('error_code=otp_expired')
  })

  it('without X-Supabase-Api-Version, errors come in the legacy shape', async () => {
    const response = await raw(stack.emulator, '/auth/v1/token?grant_type=password', {
      method: 'POST',
      headers: { apikey: LOCAL_ANON_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ghost@example.com', password: 'x' }),
    })
    expect(response.headers.get('x-sb-error-code')).toBe('invalid_credentials')
    expect(await response.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    })
  })
})

describe('the gateway refuses (Supabase "Understanding API keys")', () => {
  const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36'
  const [SETTINGS, ADMIN, REST] = ['/auth/v1/settings', '/auth/v1/admin/users', '/rest/v1/x']
  const INVALID = 'Invalid API key'
  const secretInBrowser = { apikey: LOCAL_SECRET_KEY, 'user-agent': BROWSER_UA }
  const IN_BROWSER = 'Forbidden use of secret API key in browser'
  it.each<[string, string, Record<string, string>, string]>([
    ['no API key', SETTINGS, {}, 'No API key found in request'],
    ['a wrong API key', SETTINGS, { apikey: 'nope' }, INVALID],
    ["another project's new key", SETTINGS, { apikey: 'sb_publishable_not-this-project' }, INVALID],
    ['the secret key from a browser (Auth)', ADMIN, secretInBrowser, IN_BROWSER],
    ['the secret key from a browser (PostgREST)', REST, secretInBrowser, IN_BROWSER],
    [
      'a new key in Authorization that is not the apikey header',
      ADMIN,
      { apikey: LOCAL_PUBLISHABLE_KEY, authorization: `Bearer ${LOCAL_SECRET_KEY}` },
      'Invalid authorization header',
    ],
  ])('%s: 401', async (_name, path, headers, message) => {
    const response = await raw(stack.emulator, path, { headers })
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ message })
  })

  it('the admin API with an API key and no bearer: 401 no_authorization', async () => {
    const response = await raw(stack.emulator, '/auth/v1/admin/users', {
      headers: { apikey: LOCAL_ANON_KEY, 'x-supabase-api-version': '2024-01-01' },
    })
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ code: 'no_authorization' })
  })

  it('passes the legacy service_role key from a browser, and the publishable one', async () => {
    for (const headers of [
      { apikey: LOCAL_SERVICE_ROLE_KEY, authorization: `Bearer ${LOCAL_SERVICE_ROLE_KEY}` },
      { apikey: LOCAL_PUBLISHABLE_KEY },
    ] as Record<string, string>[]) {
      const response = await raw(stack.emulator, '/auth/v1/settings', {
        headers: { ...headers, 'user-agent': BROWSER_UA },
      })
      expect(response.status).toBe(200)
    }
  })
})

describe('the local OAuth consent page refuses', () => {
  /** Starts a GitHub sign-in on `on` and returns a way to submit its consent form. */
  async function consent(on: TestStack = stack) {
    const { data } = await on.client().auth.signInWithOAuth({
      provider: 'github',
      options: { redirectTo: `${SITE_URL}/auth/callback` },
    })
    const consentUrl = locationOf(await fetch(data.url!, { redirect: 'manual' }))
    const flow = consentUrl.searchParams.get('flow')!
    return (fields: Record<string, string>) =>
      fetch(new URL('/auth/v1/_consent', consentUrl), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ flow, ...fields }),
      })
  }

  it('an invalid email (the form again, with an alert) and a flow already decided', async () => {
    const submit = await consent()
    const invalid = await submit({ email: 'not-an-email', decision: 'authorize' })
    expect(invalid.status).toBe(400)
    expect(await invalid.text()).toContain('role="alert"')
    await submit({ decision: 'cancel' })
    expect((await submit({ email: 'late@example.com', decision: 'authorize' })).status).toBe(400)
  })

  it('with sign-ups off: sign-up, a code and OAuth for a new address; a user still signs in', async () => {
    const closed = await startTestStack({ disableSignup: true })
    try {
      const settings = await raw(closed.emulator, '/auth/v1/settings', {
        headers: { apikey: LOCAL_ANON_KEY },
      })
      expect(await settings.json()).toMatchObject({ disable_signup: true })
      const signUp = await closed
        .client()
        .auth.signUp({ email: 'new@example.com', password: 'hunter22' })
      expect(signUp.error).toMatchObject({
        status: 422,
        code: 'signup_disabled',
        message: 'Signups not allowed for this instance',
      })
      const otp = await closed.client().auth.signInWithOtp({ email: 'new@example.com' })
      expect(otp.error).toMatchObject({ status: 422, code: 'otp_disabled' })
      const authorize = async (email: string) =>
        locationOf(await (await consent(closed))({ email, decision: 'authorize' })).searchParams
      expect(Object.fromEntries(await authorize('new@example.com'))).toEqual({
        error: 'access_denied',
        error_code: 'signup_disabled',
        error_description: 'Signups not allowed for this instance',
      })
      await closed.createUser('member@example.com')
      expect((await authorize('member@example.com')).get('code')).toBeTruthy()
    } finally {
      await closed.close()
    }
  })
})
