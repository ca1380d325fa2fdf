import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_ANON_KEY } from './keys'
import { raw, SITE_URL, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

describe('sign-up with email confirmation', () => {
  it('returns the user without a session, mails a token_hash link, and verifyOtp confirms it', async () => {
    const supabase = stack.client()
    const { data, error } = await supabase.auth.signUp({
      email: 'New.Person@Example.com',
      password: 'hunter22',
      options: {
        emailRedirectTo: `${SITE_URL}/auth/callback?next=/dashboard/settings`,
        data: { full_name: 'New Person' },
      },
    })
    expect(error).toBeNull()
    expect(data.session).toBeNull()
    expect(data.user).toMatchObject({
      email: 'new.person@example.com',
      aud: 'authenticated',
      role: 'authenticated',
      user_metadata: { full_name: 'New Person' },
      app_metadata: { provider: 'email', providers: ['email'] },
    })
    expect(data.user?.email_confirmed_at).toBeUndefined()
    expect(data.user?.identities).toHaveLength(1)

    const mail = await stack.emulator.inbox.latestFor('new.person@example.com')
    expect(mail?.subject).toBe('Confirm your email address')
    const link = new URL(mail!.link!)
    expect(`${link.origin}${link.pathname}`).toBe(`${SITE_URL}/auth/callback`)
    // the project's template passes the accepted redirect on as `next`
    expect(link.searchParams.get('next')).toBe(`${SITE_URL}/auth/callback?next=/dashboard/settings`)
    expect(link.searchParams.get('type')).toBe('signup')
    // PKCE sign-ups carry GoTrue's pkce_ prefix on the token hash.
    expect(link.searchParams.get('token_hash')).toMatch(/^pkce_[0-9a-f]{56}$/)
    expect(mail!.text).toContain(mail!.otp!)
    expect(mail!.otp).toMatch(/^\d{6}$/)

    const verified = await supabase.auth.verifyOtp({
      type: 'signup',
      token_hash: link.searchParams.get('token_hash')!,
    })
    expect(verified.error).toBeNull()
    expect(verified.data.session?.token_type).toBe('bearer')
    expect(verified.data.session?.expires_in).toBe(3600)
    expect(verified.data.user?.email_confirmed_at).toBeTruthy()
    expect(verified.data.user?.identities?.[0].identity_data?.email_verified).toBe(true)

    const again = await supabase.auth.verifyOtp({
      type: 'signup',
      token_hash: link.searchParams.get('token_hash')!,
    })
    expect(again.error).toMatchObject({ status: 403, code: 'otp_expired' })
  })

  it('refuses a weak password with weak_password reasons', async () => {
    const { error } = await stack
      .client()
      .auth.signUp({ email: 'weak@example.com', password: '12345' })
    expect(error).toMatchObject({ status: 422, code: 'weak_password', reasons: ['length'] })
    expect(error?.name).toBe('AuthWeakPasswordError')
  })

  it('hides a confirmed email behind a made-up user (no identities, no mail) and re-sends the mail for an unconfirmed one, keeping its first password and metadata', async () => {
    await stack.createUser('taken@example.com')
    const taken = await stack
      .client()
      .auth.signUp({ email: 'taken@example.com', password: 'hunter22' })
    expect(taken.error).toBeNull()
    expect(taken.data.user?.identities).toEqual([])
    expect(taken.data.session).toBeNull()
    expect(await stack.emulator.inbox.latestFor('taken@example.com')).toBeUndefined()

    await stack.client().auth.signUp({
      email: 'pending@example.com',
      password: 'hunter22',
      options: { data: { chosen: 'first' } },
    })
    const first = await stack.emulator.inbox.latestFor('pending@example.com')
    // Within max_frequency (60 s) the mail is not sent again: 429, as GoTrue answers.
    const tooSoon = await stack
      .client()
      .auth.signUp({ email: 'pending@example.com', password: 'hunter22' })
    expect(tooSoon.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' })
    // A minute later (the first mail's time moved back) it is.
    await stack.db.query(
      `update auth.users set confirmation_sent_at = now() - interval '61 seconds' where email = $1`,
      ['pending@example.com'],
    )
    const second = await stack.client().auth.signUp({
      email: 'pending@example.com',
      password: 'another-password',
      options: { data: { chosen: 'second' } },
    })
    expect(second.error).toBeNull()
    const mails = (await stack.emulator.inbox.list()).filter(
      (mail) => mail.to === 'pending@example.com',
    )
    expect(mails).toHaveLength(2)
    expect(mails[0].link).not.toBe(first?.link)
    // The account is not updated (supabase/supabase#29347): confirmed from the second mail, it
    // keeps the first sign-up's password and metadata.
    const tokenHash = new URL(mails[0].link!).searchParams.get('token_hash')!
    const confirmed = await stack.client().auth.verifyOtp({ type: 'signup', token_hash: tokenHash })
    expect(confirmed.data.user?.user_metadata).toMatchObject({ chosen: 'first' })
    const signIn = (password: string) =>
      stack.client().auth.signInWithPassword({ email: 'pending@example.com', password })
    expect((await signIn('hunter22')).error).toBeNull()
    expect((await signIn('another-password')).error?.code).toBe('invalid_credentials')
  })

  it('rejects an invalid email with validation_failed', async () => {
    const { error } = await stack
      .client()
      .auth.signUp({ email: 'not-an-email', password: 'hunter22' })
    expect(error).toMatchObject({ status: 400, code: 'validation_failed' })
  })
})

describe('password sign-in', () => {
  it('signs in a confirmed user with a session shaped like GoTrue’s', async () => {
    const id = await stack.createUser('signin@example.com', 'right-password')
    const { data, error } = await stack.client().auth.signInWithPassword({
      email: 'SIGNIN@example.com',
      password: 'right-password',
    })
    expect(error).toBeNull()
    const session = data.session!
    expect(Object.keys(session).sort()).toEqual(
      ['access_token', 'expires_at', 'expires_in', 'refresh_token', 'token_type', 'user'].sort(),
    )
    expect(session.user.id).toBe(id)
    expect(session.expires_at).toBeGreaterThan(Date.now() / 1000 + 3500)
    expect(data.user?.last_sign_in_at).toBeTruthy()
  })

  it('gives invalid_credentials for a wrong password or unknown email, email_not_confirmed when unconfirmed', async () => {
    await stack.createUser('wrongpw@example.com', 'right-password')
    const wrong = await stack
      .client()
      .auth.signInWithPassword({ email: 'wrongpw@example.com', password: 'nope-nope' })
    expect(wrong.error).toMatchObject({
      status: 400,
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    })
    const unknown = await stack
      .client()
      .auth.signInWithPassword({ email: 'ghost@example.com', password: 'nope-nope' })
    expect(unknown.error).toMatchObject({ status: 400, code: 'invalid_credentials' })

    await stack.client().auth.signUp({ email: 'unconfirmed@example.com', password: 'hunter22' })
    const unconfirmed = await stack.client().auth.signInWithPassword({
      email: 'unconfirmed@example.com',
      password: 'hunter22',
    })
    expect(unconfirmed.error).toMatchObject({
      status: 400,
      code: 'email_not_confirmed',
      message: 'Email not confirmed',
    })
  })

  it('uses the legacy error shape when the client sends no API version header', async () => {
    const response = await raw(stack.emulator, '/auth/v1/token?grant_type=password', {
      method: 'POST',
      headers: { apikey: LOCAL_ANON_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ghost@example.com', password: 'x' }),
    })
    expect(response.status).toBe(400)
    expect(response.headers.get('x-supabase-api-version')).toBeNull()
    expect(response.headers.get('x-sb-error-code')).toBe('invalid_credentials')
    expect(await response.json()).toEqual({
      code: 400,
      error_code: 'invalid_credentials',
      msg: 'Invalid login credentials',
    })

    const versioned = await raw(stack.emulator, '/auth/v1/token?grant_type=password', {
      method: 'POST',
      headers: { apikey: LOCAL_ANON_KEY, 'x-supabase-api-version': '2024-01-01' },
      body: JSON.stringify({ email: 'ghost@example.com', password: 'x' }),
    })
    expect(versioned.headers.get('x-supabase-api-version')).toBe('2024-01-01')
    expect(await versioned.json()).toEqual({
      code: 'invalid_credentials',
      message: 'Invalid login credentials',
    })
  })

  it('requires a valid apikey', async () => {
    const missing = await raw(stack.emulator, '/auth/v1/settings')
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ message: 'No API key found in request' })
    const wrong = await raw(stack.emulator, '/auth/v1/settings', { headers: { apikey: 'nope' } })
    expect(wrong.status).toBe(401)
    const ok = await raw(stack.emulator, '/auth/v1/settings', {
      headers: { apikey: LOCAL_ANON_KEY },
    })
    expect(await ok.json()).toMatchObject({
      external: { email: true, github: true },
      mailer_autoconfirm: false,
    })
  })
})

describe('sign-up with email confirmation off', () => {
  it('answers 422 user_already_exists for a confirmed email', async () => {
    const open = await startTestStack({ obfuscateExistingSignups: false })
    try {
      await open.createUser('taken-open@example.com')
      const taken = await open
        .client()
        .auth.signUp({ email: 'taken-open@example.com', password: 'hunter22' })
      expect(taken.error).toMatchObject({
        status: 422,
        code: 'user_already_exists',
        message: 'User already registered',
      })
    } finally {
      await open.close()
    }
  })
})
