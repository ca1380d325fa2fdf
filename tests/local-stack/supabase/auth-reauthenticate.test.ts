import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestStack, type TestStack } from './test-support'

// Secure password change (supabase/config.toml `secure_password_change = true`), as GoTrue's
// UserUpdate and Reauthenticate do it: a session older than 24 hours needs a mailed nonce.
// "Require current password" is on too, so each change also sends the current password.
const current_password = 'correct-horse-battery'
let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

async function ageSessions(userId: string) {
  await stack.db.query(
    `update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`,
    [userId],
  )
}

describe('secure password change', () => {
  it('lets a session that signed in within 24 hours set a password without a nonce', async () => {
    await stack.createUser('fresh@example.com')
    const { supabase } = await stack.signIn('fresh@example.com')
    const { error } = await supabase.auth.updateUser({
      password: 'a-new-password-1',
      current_password,
    })
    expect(error).toBeNull()
  })

  it('asks an older session for the mailed nonce, which works once', async () => {
    const id = await stack.createUser('older@example.com')
    const { supabase } = await stack.signIn('older@example.com')
    await ageSessions(id)

    const needed = await supabase.auth.updateUser({
      password: 'a-new-password-2',
      current_password,
    })
    expect(needed.error).toMatchObject({ status: 400, code: 'reauthentication_needed' })

    // A weak password is refused before the nonce is asked for, as in GoTrue.
    const weak = await supabase.auth.updateUser({ password: 'short' })
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' })

    expect((await supabase.auth.reauthenticate()).error).toBeNull()
    const mail = await stack.emulator.inbox.latestFor('older@example.com')
    expect(mail).toMatchObject({
      kind: 'reauthentication',
      subject: 'Your code to change your password',
    })
    expect(mail!.otp).toMatch(/^\d{6}$/)
    expect(mail!.text).toContain(mail!.otp)

    const again = await supabase.auth.reauthenticate()
    expect(again.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' })

    const wrong = String((Number(mail!.otp) + 1) % 1_000_000).padStart(6, '0')
    const bad = await supabase.auth.updateUser({
      password: 'a-new-password-2',
      nonce: wrong,
      current_password,
    })
    expect(bad.error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' })

    const ok = await supabase.auth.updateUser({
      password: 'a-new-password-2',
      nonce: mail!.otp!,
      current_password,
    })
    expect(ok.error).toBeNull()
    const reused = await supabase.auth.updateUser({
      password: 'a-new-password-3',
      nonce: mail!.otp!,
      current_password: 'a-new-password-2',
    })
    expect(reused.error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' })

    const probe = stack.client()
    const signedIn = await probe.auth.signInWithPassword({
      email: 'older@example.com',
      password: 'a-new-password-2',
    })
    expect(signedIn.error).toBeNull()
  })

  it('refuses an expired nonce', async () => {
    const id = await stack.createUser('expired@example.com')
    const { supabase } = await stack.signIn('expired@example.com')
    await ageSessions(id)
    await supabase.auth.reauthenticate()
    const mail = await stack.emulator.inbox.latestFor('expired@example.com')
    await stack.db.query(
      `update auth.users set reauthentication_sent_at = now() - interval '2 hours' where id = $1`,
      [id],
    )
    const { error } = await supabase.auth.updateUser({
      password: 'a-new-password-4',
      nonce: mail!.otp!,
      current_password,
    })
    expect(error).toMatchObject({ status: 422, code: 'reauthentication_not_valid' })
  })
})
