import { readFileSync } from 'node:fs'
import path from 'node:path'

import { parse } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PROJECT_ROOT } from '../database'
import { projectAuthSettings } from './auth/project-settings'
import { LOCAL_ANON_KEY } from './keys'
import { MANY_MAILS, raw, startTestStack, type TestStack } from './test-support'

// A new password, as GoTrue's UserUpdate and models.User.UpdatePassword handle it: "require
// current password" (on by default here, as in the product's project) asks a password
// session for the current one; a session opened by an emailed link or code is exempt; and
// the change ends the user's other sessions and every pending link and code.
let stack: TestStack
const PASSWORD = 'correct-horse-battery'

beforeAll(async () => {
  // More than the project's 4 auth mails an hour, which are not what these tests are about.
  stack = await startTestStack(MANY_MAILS)
})
afterAll(() => stack.close())

function tokenHashOf(link: string | null | undefined) {
  return new URL(link!).searchParams.get('token_hash')!
}

async function canSignIn(email: string, password: string) {
  const { error } = await stack.client().auth.signInWithPassword({ email, password })
  return error === null
}

/** The auth server's own answer to GET /auth/v1/user with an access token. */
async function userAnswer(accessToken: string) {
  const response = await raw(stack.emulator, '/auth/v1/user', {
    headers: {
      apikey: LOCAL_ANON_KEY,
      authorization: `Bearer ${accessToken}`,
      'x-supabase-api-version': '2024-01-01',
    },
  })
  return { status: response.status, code: ((await response.json()) as { code?: string }).code }
}

/** PUT /auth/v1/user with nothing but an access token, as a stolen cookie allows. */
function putUser(accessToken: string, body: Record<string, unknown>) {
  return raw(stack.emulator, '/auth/v1/user', {
    method: 'PUT',
    headers: {
      apikey: LOCAL_ANON_KEY,
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      'x-supabase-api-version': '2024-01-01',
    },
    body: JSON.stringify(body),
  })
}

describe('require current password', () => {
  it('refuses a new password without the current one, or with a wrong one', async () => {
    await stack.createUser('needs-current@example.com')
    const { supabase, session } = await stack.signIn('needs-current@example.com')

    const missing = await supabase.auth.updateUser({ password: 'a-new-password-1' })
    expect(missing.error).toMatchObject({ status: 400, code: 'current_password_required' })
    const wrong = await supabase.auth.updateUser({
      password: 'a-new-password-1',
      current_password: 'not-my-password',
    })
    expect(wrong.error).toMatchObject({ status: 400, code: 'current_password_invalid' })

    // The access token alone, sent straight to the auth server.
    const direct = await putUser(session.access_token, { password: 'a-new-password-1' })
    expect(direct.status).toBe(400)
    expect(await direct.json()).toMatchObject({ code: 'current_password_required' })
    expect(await canSignIn('needs-current@example.com', PASSWORD)).toBe(true)

    // A weak password is refused before the current one is asked for, as in GoTrue.
    const weak = await supabase.auth.updateUser({ password: 'short' })
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' })

    const ok = await supabase.auth.updateUser({
      password: 'a-new-password-1',
      current_password: PASSWORD,
    })
    expect(ok.error).toBeNull()
    expect(await canSignIn('needs-current@example.com', 'a-new-password-1')).toBe(true)
  })

  it('exempts a session opened by a recovery link (token hash) or a magic link', async () => {
    await stack.createUser('recovers@example.com')
    const recovering = stack.client()
    await recovering.auth.resetPasswordForEmail('recovers@example.com')
    const recovery = await stack.emulator.inbox.latestFor('recovers@example.com')
    const opened = await recovering.auth.verifyOtp({
      type: 'recovery',
      token_hash: tokenHashOf(recovery?.link),
    })
    expect(opened.error).toBeNull()
    const reset = await recovering.auth.updateUser({ password: 'a-new-password-2' })
    expect(reset.error).toBeNull()

    const magic = stack.client()
    await magic.auth.signInWithOtp({
      email: 'recovers@example.com',
      options: { shouldCreateUser: false },
    })
    const link = await stack.emulator.inbox.latestFor('recovers@example.com')
    expect(
      (await magic.auth.verifyOtp({ type: 'magiclink', token_hash: tokenHashOf(link?.link) }))
        .error,
    ).toBeNull()
    expect((await magic.auth.updateUser({ password: 'a-new-password-3' })).error).toBeNull()
    expect(await canSignIn('recovers@example.com', 'a-new-password-3')).toBe(true)
  })

  it('exempts a recovery session opened through PKCE (`amr` recovery)', async () => {
    await stack.createUser('pkce-recovery@example.com')
    const browser = stack.client()
    await browser.auth.resetPasswordForEmail('pkce-recovery@example.com')
    const mail = await stack.emulator.inbox.latestFor('pkce-recovery@example.com')
    const verified = await fetch(mail!.verifyUrl!, { redirect: 'manual' })
    const code = new URL(verified.headers.get('location')!).searchParams.get('code')!
    expect((await browser.auth.exchangeCodeForSession(code)).error).toBeNull()
    expect((await browser.auth.updateUser({ password: 'a-new-password-4' })).error).toBeNull()
  })
})

describe('what a new password ends', () => {
  it("ends the user's other sessions and keeps this one", async () => {
    const id = await stack.createUser('many-devices@example.com')
    const here = await stack.signIn('many-devices@example.com')
    const elsewhere = await stack.signIn('many-devices@example.com')
    const someoneElse = await stack.createUser('bystander@example.com')
    await stack.signIn('bystander@example.com')

    const { error } = await here.supabase.auth.updateUser({
      password: 'a-new-password-6',
      current_password: PASSWORD,
    })
    expect(error).toBeNull()

    expect((await here.supabase.auth.getUser()).data.user?.id).toBe(id)
    expect(await userAnswer(elsewhere.session.access_token)).toEqual({
      status: 403,
      code: 'session_not_found',
    })
    const refresh = await stack
      .client()
      .auth.refreshSession({ refresh_token: elsewhere.session.refresh_token })
    expect(refresh.error).toMatchObject({ code: 'refresh_token_not_found' })
    const { rows } = await stack.db.query<{ user_id: string }>(
      'select user_id from auth.sessions where user_id in ($1, $2)',
      [id, someoneElse],
    )
    expect(rows.map((row) => row.user_id).sort()).toEqual([id, someoneElse].sort())
  })

  it('voids a pending recovery link, email change and reauthentication code', async () => {
    const id = await stack.createUser('pending@example.com')
    const { supabase } = await stack.signIn('pending@example.com')
    await stack.client().auth.resetPasswordForEmail('pending@example.com')
    const recovery = await stack.emulator.inbox.latestFor('pending@example.com')
    expect((await supabase.auth.updateUser({ email: 'pending-new@example.com' })).error).toBeNull()
    const change = await stack.emulator.inbox.latestFor('pending-new@example.com')
    expect((await supabase.auth.reauthenticate()).error).toBeNull()

    const changed = await supabase.auth.updateUser({
      password: 'a-new-password-7',
      current_password: PASSWORD,
    })
    expect(changed.error).toBeNull()

    const link = await stack.client().auth.verifyOtp({
      type: 'recovery',
      token_hash: tokenHashOf(recovery?.link),
    })
    expect(link.error).toMatchObject({ status: 403, code: 'otp_expired' })
    const email = await stack.client().auth.verifyOtp({
      type: 'email_change',
      token_hash: tokenHashOf(change?.link),
    })
    expect(email.error).toMatchObject({ status: 403, code: 'otp_expired' })
    const { rows } = await stack.db.query<{ reauthentication_token: string; email: string }>(
      'select reauthentication_token, email from auth.users where id = $1',
      [id],
    )
    expect(rows[0]).toEqual({ reauthentication_token: '', email: 'pending@example.com' })
  })

  it("an admin's new password ends every session of the user", async () => {
    const id = await stack.createUser('admin-reset@example.com')
    const { session } = await stack.signIn('admin-reset@example.com')
    const { error } = await stack.admin().auth.admin.updateUserById(id, {
      password: 'a-new-password-8',
    })
    expect(error).toBeNull()
    expect(await userAnswer(session.access_token)).toEqual({
      status: 403,
      code: 'session_not_found',
    })
  })
})

describe('reauthentication_not_valid', () => {
  it('is 422, as GoTrue answers it', async () => {
    const id = await stack.createUser('nonce@example.com')
    const { supabase } = await stack.signIn('nonce@example.com')
    await stack.db.query(
      `update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`,
      [id],
    )
    const { error } = await supabase.auth.updateUser({
      password: 'a-new-password-9',
      nonce: '000000',
      current_password: PASSWORD,
    })
    expect(error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' })
  })
})

describe('settings from supabase/config.toml', () => {
  it('secure password change follows `[auth.email] secure_password_change`', () => {
    const config = parse(readFileSync(path.join(PROJECT_ROOT, 'supabase/config.toml'), 'utf8')) as {
      auth: { email: { secure_password_change: boolean } }
    }
    expect(config.auth.email.secure_password_change).toBe(true)
    expect(projectAuthSettings()).toEqual({ securePasswordChange: true })
  })
})
