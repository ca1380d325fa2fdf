import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { MANY_MAILS, SITE_URL, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack(MANY_MAILS)
})
afterAll(() => stack.close())

/** Moves the user's last mails a minute back: what waiting out `max_frequency` does. */
async function mailedAMinuteAgo(email: string) {
  await stack.db.query(
    `update auth.users set confirmation_sent_at = confirmation_sent_at - interval '61 seconds',
       recovery_sent_at = recovery_sent_at - interval '61 seconds' where email = $1`,
    [email],
  )
}

function tokenHashOf(link: string | null | undefined) {
  return new URL(link!).searchParams.get('token_hash')!
}

describe('magic link', () => {
  it('signInWithOtp mails a magiclink; verifyOtp({type: magiclink, token_hash}) signs in', async () => {
    await stack.createUser('magic@example.com')
    const supabase = stack.client()
    const sent = await supabase.auth.signInWithOtp({
      email: 'magic@example.com',
      options: { emailRedirectTo: `${SITE_URL}/auth/callback?next=/dashboard/billing` },
    })
    expect(sent.error).toBeNull()
    const mail = await stack.emulator.inbox.latestFor('magic@example.com')
    expect(mail?.subject).toBe('Your sign-in link')
    const link = new URL(mail!.link!)
    expect(link.searchParams.get('type')).toBe('magiclink')
    // the project's template passes the accepted redirect on as `next`
    expect(link.searchParams.get('next')).toBe(`${SITE_URL}/auth/callback?next=/dashboard/billing`)

    const { data, error } = await supabase.auth.verifyOtp({
      type: 'magiclink',
      token_hash: tokenHashOf(mail!.link),
    })
    expect(error).toBeNull()
    expect(data.session?.user.email).toBe('magic@example.com')
  })

  it('verifyOtp({type: email}) accepts the 6-digit code and the token hash', async () => {
    await stack.createUser('code@example.com')
    await stack.client().auth.signInWithOtp({ email: 'code@example.com' })
    const mail = await stack.emulator.inbox.latestFor('code@example.com')
    const wrong = await stack.client().auth.verifyOtp({
      type: 'email',
      email: 'code@example.com',
      token: '000000' === mail!.otp ? '111111' : '000000',
    })
    expect(wrong.error).toMatchObject({
      status: 403,
      code: 'otp_expired',
      message: 'Token has expired or is invalid',
    })
    const { data, error } = await stack
      .client()
      .auth.verifyOtp({ type: 'email', email: 'code@example.com', token: mail!.otp! })
    expect(error).toBeNull()
    expect(data.user?.email).toBe('code@example.com')

    // A second link within max_frequency (60 s) is refused; the first was a minute ago.
    await mailedAMinuteAgo('code@example.com')
    await stack.client().auth.signInWithOtp({ email: 'code@example.com' })
    const second = await stack.emulator.inbox.latestFor('code@example.com')
    const byHash = await stack
      .client()
      .auth.verifyOtp({ type: 'email', token_hash: tokenHashOf(second!.link) })
    expect(byHash.error).toBeNull()
  })

  it('sends a sign-up confirmation to a new email, or refuses with otp_disabled when shouldCreateUser is false', async () => {
    const refused = await stack
      .client()
      .auth.signInWithOtp({ email: 'nobody@example.com', options: { shouldCreateUser: false } })
    expect(refused.error).toMatchObject({ status: 422, code: 'otp_disabled' })
    expect(await stack.emulator.inbox.latestFor('nobody@example.com')).toBeUndefined()

    await stack
      .client()
      .auth.signInWithOtp({ email: 'fresh@example.com', options: { data: { full_name: 'Fresh' } } })
    const mail = await stack.emulator.inbox.latestFor('fresh@example.com')
    expect(mail?.kind).toBe('signup')
    const { data, error } = await stack
      .client()
      .auth.verifyOtp({ type: 'email', token_hash: tokenHashOf(mail!.link) })
    expect(error).toBeNull()
    expect(data.user).toMatchObject({
      email: 'fresh@example.com',
      user_metadata: { full_name: 'Fresh' },
    })
    expect(data.user?.email_confirmed_at).toBeTruthy()
  })

  it('answers otp_expired for an expired link', async () => {
    await stack.createUser('late@example.com')
    await stack.client().auth.signInWithOtp({ email: 'late@example.com' })
    const mail = await stack.emulator.inbox.latestFor('late@example.com')
    await stack.db.query(
      `update auth.one_time_tokens set created_at = now() - interval '2 hours'
       where user_id = (select id from auth.users where email = 'late@example.com')`,
    )
    const { error } = await stack
      .client()
      .auth.verifyOtp({ type: 'magiclink', token_hash: tokenHashOf(mail!.link) })
    expect(error).toMatchObject({
      status: 403,
      code: 'otp_expired',
      message: 'Email link is invalid or has expired',
    })
  })
})

describe('password recovery and user updates', () => {
  it('recover → verifyOtp(recovery) → updateUser({password}); same password is refused', async () => {
    await stack.createUser('forgot@example.com', 'old-password')
    const unknown = await stack.client().auth.resetPasswordForEmail('unknown@example.com')
    expect(unknown.error).toBeNull()

    const supabase = stack.client()
    expect((await supabase.auth.resetPasswordForEmail('forgot@example.com')).error).toBeNull()
    const mail = await stack.emulator.inbox.latestFor('forgot@example.com')
    expect(new URL(mail!.link!).searchParams.get('type')).toBe('recovery')
    const verified = await supabase.auth.verifyOtp({
      type: 'recovery',
      token_hash: tokenHashOf(mail!.link),
    })
    expect(verified.error).toBeNull()

    const same = await supabase.auth.updateUser({ password: 'old-password' })
    expect(same.error).toMatchObject({ status: 422, code: 'same_password' })
    const weak = await supabase.auth.updateUser({ password: 'abc' })
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' })
    const changed = await supabase.auth.updateUser({
      password: 'brand-new-password',
      data: { theme: 'dark' },
    })
    expect(changed.error).toBeNull()
    expect(changed.data.user?.user_metadata).toMatchObject({ theme: 'dark' })

    const old = await stack
      .client()
      .auth.signInWithPassword({ email: 'forgot@example.com', password: 'old-password' })
    expect(old.error?.code).toBe('invalid_credentials')
    const fresh = await stack
      .client()
      .auth.signInWithPassword({ email: 'forgot@example.com', password: 'brand-new-password' })
    expect(fresh.error).toBeNull()
  })

  it('email change needs both addresses to confirm (secure email change)', async () => {
    await stack.createUser('old-address@example.com')
    const supabase = stack.client()
    await supabase.auth.signInWithPassword({
      email: 'old-address@example.com',
      password: 'correct-horse-battery',
    })
    const { data, error } = await supabase.auth.updateUser({ email: 'new-address@example.com' })
    expect(error).toBeNull()
    expect(data.user).toMatchObject({
      email: 'old-address@example.com',
      new_email: 'new-address@example.com',
    })

    const toNew = await stack.emulator.inbox.latestFor('new-address@example.com')
    const toOld = await stack.emulator.inbox.latestFor('old-address@example.com')
    // The project's template (supabase/config.toml): one subject for both addresses.
    expect(toNew?.subject).toBe('Confirm the change of your Subscribely sign-in email')
    expect(toOld?.kind).toBe('email_change')

    const first = await stack
      .client()
      .auth.verifyOtp({ type: 'email_change', token_hash: tokenHashOf(toNew!.link) })
    expect(first.error).toBeNull()
    expect(first.data.session).toBeNull()
    const second = await stack
      .client()
      .auth.verifyOtp({ type: 'email_change', token_hash: tokenHashOf(toOld!.link) })
    expect(second.error).toBeNull()
    expect(second.data.user?.email).toBe('new-address@example.com')
    const signIn = await stack.client().auth.signInWithPassword({
      email: 'new-address@example.com',
      password: 'correct-horse-battery',
    })
    expect(signIn.error).toBeNull()
  })

  it('refuses an email that belongs to someone else', async () => {
    await stack.createUser('mine@example.com')
    await stack.createUser('theirs@example.com')
    const supabase = stack.client()
    await supabase.auth.signInWithPassword({
      email: 'mine@example.com',
      password: 'correct-horse-battery',
    })
    const { error } = await supabase.auth.updateUser({ email: 'theirs@example.com' })
    expect(error).toMatchObject({ status: 422, code: 'email_exists' })
  })
})
