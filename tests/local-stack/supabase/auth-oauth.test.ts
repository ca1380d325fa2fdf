import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_ANON_KEY } from './keys'
import { locationOf, SITE_URL, ssrClient, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

/** Follows the signInWithOAuth URL to the consent page and returns the flow id it shows. */
async function openConsent(url: string) {
  const authorize = await fetch(url, { redirect: 'manual' })
  expect(authorize.status).toBe(302)
  const consentUrl = locationOf(authorize)
  expect(consentUrl.pathname).toBe('/auth/v1/_consent')
  const page = await fetch(consentUrl)
  expect(page.headers.get('content-type')).toContain('text/html')
  const html = await page.text()
  const flow = /name="flow" value="([^"]+)"/.exec(html)?.[1]
  return { html, flow: flow!, action: new URL('/auth/v1/_consent', consentUrl) }
}

function submit(action: URL, fields: Record<string, string>) {
  return fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  })
}

describe('OAuth through the local consent page', () => {
  it('signInWithOAuth → consent → redirect_to?code= → exchangeCodeForSession', async () => {
    const { client, jar } = ssrClient(stack.emulator.url)
    const { data, error } = await client.auth.signInWithOAuth({
      provider: 'github',
      options: { redirectTo: `${SITE_URL}/auth/callback?next=/dashboard` },
    })
    expect(error).toBeNull()
    const { html, flow, action } = await openConsent(data.url!)
    expect(html).toContain('<label for="email">Email</label>')
    expect(html).toMatch(/<button[^>]*value="authorize"[^>]*>Authorize<\/button>/)
    expect(html).toMatch(/<button[^>]*value="cancel"[^>]*>Cancel<\/button>/)

    const decided = await submit(action, {
      flow,
      email: 'octo@example.com',
      name: 'Octo Cat',
      decision: 'authorize',
    })
    expect(decided.status).toBe(302)
    const location = locationOf(decided)
    expect(`${location.origin}${location.pathname}`).toBe(`${SITE_URL}/auth/callback`)
    expect(location.searchParams.get('next')).toBe('/dashboard')
    const code = location.searchParams.get('code')!

    const callback = ssrClient(stack.emulator.url, jar)
    const session = await callback.client.auth.exchangeCodeForSession(code)
    expect(session.error).toBeNull()
    expect(session.data.user).toMatchObject({
      email: 'octo@example.com',
      app_metadata: { provider: 'github', providers: ['github'] },
      user_metadata: { full_name: 'Octo Cat', email_verified: true },
    })
    expect(session.data.user?.identities?.map((identity) => identity.provider)).toEqual(['github'])
    const claims = await callback.client.auth.getClaims()
    expect(claims.data?.claims.amr).toEqual([{ method: 'oauth', timestamp: expect.any(Number) }])
  })

  it('links the provider identity to an existing account with the same email', async () => {
    const id = await stack.createUser('existing@example.com')
    const supabase = stack.client()
    const { data } = await supabase.auth.signInWithOAuth({
      provider: 'github',
      options: { redirectTo: `${SITE_URL}/auth/callback` },
    })
    const { flow, action } = await openConsent(data.url!)
    const code = locationOf(
      await submit(action, { flow, email: 'existing@example.com', decision: 'authorize' }),
    ).searchParams.get('code')!
    const session = await supabase.auth.exchangeCodeForSession(code)
    expect(session.data.user?.id).toBe(id)
    expect(session.data.user?.app_metadata.providers).toEqual(['email', 'github'])
  })

  it('Cancel sends the browser back with error=access_denied', async () => {
    const { data } = await stack.client().auth.signInWithOAuth({
      provider: 'github',
      options: { redirectTo: `${SITE_URL}/auth/callback` },
    })
    const { flow, action } = await openConsent(data.url!)
    const location = locationOf(await submit(action, { flow, decision: 'cancel' }))
    expect(location.searchParams.get('error')).toBe('access_denied')
    expect(location.searchParams.get('error_description')).toBeTruthy()
    expect(location.searchParams.get('code')).toBeNull()
    const again = await submit(action, { flow, email: 'late@example.com', decision: 'authorize' })
    expect(again.status).toBe(400)
  })

  it('re-shows the form for an invalid email and refuses an unknown provider', async () => {
    const { data } = await stack.client().auth.signInWithOAuth({ provider: 'github' })
    const { flow, action } = await openConsent(data.url!)
    const invalid = await submit(action, { flow, email: 'not-an-email', decision: 'authorize' })
    expect(invalid.status).toBe(400)
    expect(await invalid.text()).toContain('role="alert"')

    const unknown = await fetch(`${stack.emulator.url}/auth/v1/authorize?provider=myspace`)
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toMatchObject({ error_code: 'validation_failed' })
  })
})

describe('sign-ups turned off (disable_signup)', () => {
  it('settings say so; sign-up, a one-time code and OAuth refuse a new address; a user signs in', async () => {
    const closed = await startTestStack({ disableSignup: true })
    try {
      const settings = await fetch(`${closed.emulator.url}/auth/v1/settings`, {
        headers: { apikey: LOCAL_ANON_KEY },
      })
      expect(await settings.json()).toMatchObject({ disable_signup: true })
      const supabase = closed.client()
      const signUp = await supabase.auth.signUp({ email: 'new@example.com', password: 'hunter22' })
      expect(signUp.error).toMatchObject({
        status: 422,
        code: 'signup_disabled',
        message: 'Signups not allowed for this instance',
      })
      const otp = await supabase.auth.signInWithOtp({ email: 'new@example.com' })
      expect(otp.error).toMatchObject({ status: 422, code: 'otp_disabled' })

      const oauth = async (email: string) => {
        const { data } = await closed.client().auth.signInWithOAuth({
          provider: 'github',
          options: { redirectTo: `${SITE_URL}/auth/callback` },
        })
        const { flow, action } = await openConsent(data.url!)
        return locationOf(await submit(action, { flow, email, decision: 'authorize' }))
      }
      const refused = await oauth('new@example.com')
      expect(Object.fromEntries(refused.searchParams)).toEqual({
        error: 'access_denied',
        error_code: 'signup_disabled',
        error_description: 'Signups not allowed for this instance',
      })
      await closed.createUser('member@example.com')
      expect((await oauth('member@example.com')).searchParams.get('code')).toBeTruthy()
    } finally {
      await closed.close()
    }
  })
})
