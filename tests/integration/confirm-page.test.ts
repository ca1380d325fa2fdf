import { createClient } from '@supabase/supabase-js'
import { describe, expect, it } from 'vitest'

import * as confirmPage from '../../app/routes/auth.confirm'
import * as signInPage from '../../app/routes/sign-in'
import { LOCAL_ANON_KEY } from '../local-stack/supabase'
import { askedForLinkCookie, callAt, hashedToken, latestAuthMail } from './auth-support'
import { adminClient, createUser, newEmail, testAppForFile } from './harness'

// /auth/confirm looks the link up before offering its button; mail links work whether or not
// the auth server kept the app's redirect.
const app = testAppForFile()

/** The page's loader answer for a link (what it shows is tested in tests/e2e/auth-links.spec.ts). */
async function confirmPageFor(token: string, type: string) {
  const query = new URLSearchParams({ token_hash: token, type })
  const loaded = await callAt(app, confirmPage.loader, `/auth/confirm?${query}`)
  return { status: loaded.status, data: loaded.data as { state: Record<string, unknown> } }
}

const masked = (email: string) => `${email[0]}•••${email.split('@')[0].slice(-1)}@example.com`

describe('the confirmation page checks the link before its button', () => {
  it('a valid link names the masked account and what it does, and offers the button', async () => {
    const email = newEmail('valid')
    await createUser(app, email)
    const token = await hashedToken(app, 'magiclink', email)
    const page = await confirmPageFor(token, 'magiclink')
    expect(page.status).toBe(200)
    expect(page.data.state).toEqual({
      state: 'valid',
      purpose: 'sign-in',
      account: masked(email),
      newEmail: null,
    })
    // looking did not use it
    const { error } = await createClient(app.stack.env.SUPABASE_URL, LOCAL_ANON_KEY).auth.verifyOtp(
      {
        type: 'magiclink',
        token_hash: token,
      },
    )
    expect(error).toBeNull()
  })

  it('a used link says so at once, with "Send a new link" and no button', async () => {
    const email = newEmail('used')
    await createUser(app, email)
    const token = await hashedToken(app, 'recovery', email)
    const used = await createClient(app.stack.env.SUPABASE_URL, LOCAL_ANON_KEY).auth.verifyOtp({
      type: 'recovery',
      token_hash: token,
    })
    expect(used.error).toBeNull()
    const page = await confirmPageFor(token, 'recovery')
    expect(page.data.state).toEqual({ state: 'used' })
  })

  it('an expired link says so, names the account, and leads to a new one', async () => {
    const email = newEmail('expired')
    const token = await hashedToken(app, 'signup', email)
    await app.stack.database.query(
      `update auth.one_time_tokens set created_at = now() - interval '61 minutes' where token_hash = $1`,
      [token],
    )
    const page = await confirmPageFor(token, 'signup')
    expect(page.data.state).toEqual({
      state: 'expired',
      purpose: 'confirm',
      account: masked(email),
    })
  })

  it('a link sent with another type than its token is not offered', async () => {
    const email = newEmail('mixed')
    await createUser(app, email)
    const token = await hashedToken(app, 'recovery', email)
    expect((await confirmPageFor(token, 'signup')).data.state).toEqual({ state: 'used' })
    // `email` covers both kinds of mailed sign-in token, as the auth server's verify does
    expect((await confirmPageFor(token, 'email')).data.state).toMatchObject({
      state: 'valid',
      purpose: 'sign-in',
    })
  })

  it('an email change names the account and the new address, both masked', async () => {
    const email = newEmail('change')
    await createUser(app, email)
    const next = newEmail('newaddr')
    const { data, error } = await adminClient(app).auth.admin.generateLink({
      type: 'email_change_new',
      email,
      newEmail: next,
    })
    expect(error).toBeNull()
    const page = await confirmPageFor(data.properties!.hashed_token, 'email_change')
    expect(page.data.state).toEqual({
      state: 'valid',
      purpose: 'email-change',
      account: masked(email),
      newEmail: masked(next),
    })
  })
})

describe('mail links work whether or not the redirect was on the allow-list', () => {
  it('the app’s own redirect (accepted): the link goes on to the page it named', async () => {
    const email = newEmail('kept')
    await createUser(app, email)
    const sent = await callAt(app, signInPage.action, '/sign-in', {
      form: { intent: 'magic-link', email, redirectTo: '/dashboard/settings/billing' },
    })
    expect(sent.status).toBeLessThan(400)
    const mail = await latestAuthMail(app, email, 'magiclink')
    const link = new URL(mail!.link!)
    expect(link.searchParams.get('next')).toBe(
      `${app.url}/auth/callback?next=%2Fdashboard%2Fsettings%2Fbilling`,
    )
    const response = await fetch(link, {
      redirect: 'manual',
      headers: { Cookie: await askedForLinkCookie(app, email) },
    })
    expect([response.status, response.headers.get('Location')]).toEqual([
      302,
      '/dashboard/settings/billing',
    ])
  })

  it('a redirect off the allow-list (the bare Site URL comes back): the link still signs in', async () => {
    const email = newEmail('fallback')
    await createUser(app, email)
    const sent = await createClient(app.stack.env.SUPABASE_URL, LOCAL_ANON_KEY).auth.signInWithOtp({
      email,
      options: {
        emailRedirectTo: 'http://elsewhere.example/auth/callback?next=%2Fpricing',
        shouldCreateUser: false,
      },
    })
    expect(sent.error).toBeNull()
    const mail = await app.stack.supabase.inbox.latestFor(email)
    const link = new URL(mail!.link!)
    expect(`${link.origin}${link.pathname}`).toBe(`${app.url}/auth/callback`)
    expect(link.searchParams.get('next')).toBe(app.url)
    const response = await fetch(link, {
      redirect: 'manual',
      headers: { Cookie: await askedForLinkCookie(app, email) },
    })
    expect([response.status, response.headers.get('Location')]).toEqual([302, '/dashboard'])
    expect(response.headers.getSetCookie().join('\n')).toMatch(/auth-token=base64/)
  })
})
