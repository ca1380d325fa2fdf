import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_ANON_KEY } from './keys'
import {
  locationOf,
  MANY_MAILS,
  raw,
  SITE_URL,
  startTestStack,
  type TestStack,
} from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack(MANY_MAILS)
})
afterAll(() => stack.close())

/** Opens GoTrue's own email link (GET /verify) and returns the code it redirects with. */
async function codeFromVerifyLink(verifyUrl: string) {
  const response = await fetch(verifyUrl, { redirect: 'manual' })
  expect(response.status).toBe(303)
  const location = locationOf(response)
  return { location, code: location.searchParams.get('code') }
}

describe('PKCE code exchange', () => {
  it('GET /verify redirects with ?code= and exchangeCodeForSession works exactly once', async () => {
    const supabase = stack.client()
    await supabase.auth.signUp({
      email: 'pkce@example.com',
      password: 'hunter22',
      options: { emailRedirectTo: `${SITE_URL}/auth/callback?next=/dashboard` },
    })
    const mail = await stack.emulator.inbox.latestFor('pkce@example.com')
    const { location, code } = await codeFromVerifyLink(mail!.verifyUrl!)
    expect(`${location.origin}${location.pathname}`).toBe(`${SITE_URL}/auth/callback`)
    expect(location.searchParams.get('next')).toBe('/dashboard')
    expect(code).toMatch(/^[0-9a-f-]{36}$/)

    const { data, error } = await supabase.auth.exchangeCodeForSession(code!)
    expect(error).toBeNull()
    expect(data.session?.user.email).toBe('pkce@example.com')
    expect(data.user?.email_confirmed_at).toBeTruthy()

    const reused = await stack.client().auth.exchangeCodeForSession(code!)
    // A fresh client has no verifier; the server answer is checked with the raw request below.
    expect(reused.error).toBeTruthy()
    const response = await exchange(code!, 'a'.repeat(64))
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      code: 'flow_state_not_found',
      message: 'invalid flow state, no valid flow state found',
    })
  })

  it('rejects a wrong verifier with bad_code_verifier and an old code with flow_state_expired', async () => {
    const supabase = stack.client()
    await stack.createUser('pkce2@example.com')
    await supabase.auth.signInWithOtp({
      email: 'pkce2@example.com',
      options: { emailRedirectTo: `${SITE_URL}/auth/callback` },
    })
    const mail = await stack.emulator.inbox.latestFor('pkce2@example.com')
    expect(mail?.kind).toBe('magiclink')
    const { code } = await codeFromVerifyLink(mail!.verifyUrl!)

    const bad = await exchange(code!, 'wrong-verifier-'.repeat(4))
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: 'bad_code_verifier' })

    await stack.db.query(
      `update auth.flow_state set created_at = now() - interval '10 minutes', auth_code_issued_at = now() - interval '10 minutes'
       where auth_code = $1`,
      [code],
    )
    const { error } = await supabase.auth.exchangeCodeForSession(code!)
    expect(error).toMatchObject({ status: 422, code: 'flow_state_expired' })
  })

  it('redirects a bad or used link with error parameters', async () => {
    const response = await raw(
      stack.emulator,
      `/auth/v1/verify?token=pkce_${'0'.repeat(56)}&type=signup&redirect_to=${encodeURIComponent(`${SITE_URL}/auth/callback`)}`,
    )
    expect(response.status).toBe(303)
    const location = locationOf(response)
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('error_code')).toBe('otp_expired')
    expect(location.searchParams.get('error_description')).toBe(
      'Email link is invalid or has expired',
    )
    expect(location.hash).toContain('error_code=otp_expired')
  })

  it('falls back to SITE_URL for a redirect that is not allowed', async () => {
    await stack.client().auth.signUp({
      email: 'evil-redirect@example.com',
      password: 'hunter22',
      options: { emailRedirectTo: 'https://evil.example/steal' },
    })
    const mail = await stack.emulator.inbox.latestFor('evil-redirect@example.com')
    expect(mail!.link!.startsWith(`${SITE_URL}/auth/callback?token_hash=`)).toBe(true)
    const { location } = await codeFromVerifyLink(mail!.verifyUrl!)
    expect(location.origin).toBe(SITE_URL)
  })
})

function exchange(code: string, verifier: string) {
  return raw(stack.emulator, '/auth/v1/token?grant_type=pkce', {
    method: 'POST',
    headers: {
      apikey: LOCAL_ANON_KEY,
      'content-type': 'application/json',
      'x-supabase-api-version': '2024-01-01',
    },
    body: JSON.stringify({ auth_code: code, code_verifier: verifier }),
  })
}
