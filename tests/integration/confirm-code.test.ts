import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import * as dashboardLayout from '../../app/routes/dashboard'
import * as signUpPage from '../../app/routes/sign-up'
import * as checkEmail from '../../app/routes/sign-up_.confirm'
import { appRequest, callRoute } from './auth-support'
import { mergeCookies, startTestApp, type TestApp, waitOutMailFrequency } from './harness'

/**
 * The check-email page after sign-up: the 6-digit code from the confirmation mail signs in
 * (as the link does), and "send it again" mails a new one; both rate limited, and "send it
 * again" answers the same for any address.
 */
let app: TestApp
let counter = 0
const newEmail = () => `code-${++counter}-${Date.now()}@example.com`

beforeAll(async () => {
  app = await startTestApp()
})
afterAll(() => app.close())

async function signUp(email: string) {
  const started = await callRoute(
    signUpPage.action,
    appRequest(app, '/sign-up', { form: { email, password: 'correct-horse-battery' } }),
  )
  expect(started.status).toBe(303)
  // The auth server is asked after the answer (the same work for any address).
  await mailRequestsSettled()
  const mail = await app.stack.supabase.inbox.latestFor(email)
  expect(mail?.kind).toBe('signup')
  // The browser that signed up: its code keeps the password it chose.
  return { ...mail!, browser: mergeCookies('', new Response(null, { headers: started.headers })) }
}

const post = (form: Record<string, string>, cookie = '') =>
  callRoute(checkEmail.action, appRequest(app, '/sign-up/confirm', { form, cookie }))

describe('the code from the confirmation mail', () => {
  it('confirms the address and signs in, like the link', async () => {
    const email = newEmail()
    const mail = await signUp(email)
    expect(mail.otp).toMatch(/^\d{6}$/)
    const answer = await post({ intent: 'code', email, code: mail.otp! }, mail.browser)
    expect(answer.status).toBe(303)
    expect(answer.headers.get('Location')).toBe('/dashboard?notice=email-confirmed')
    const cookie = mergeCookies('', new Response(null, { headers: answer.headers }))
    const page = await callRoute(dashboardLayout.loader, appRequest(app, '/dashboard', { cookie }))
    expect(page.status).toBe(200)
    expect(page.data).toMatchObject({ user: { email } })
  })

  it('a wrong code says so and signs nobody in; guessing is limited per address', async () => {
    const email = newEmail()
    const mail = await signUp(email)
    const wrong = mail.otp === '000000' ? '111111' : '000000'
    const answer = await post({ intent: 'code', email, code: wrong })
    expect(answer.status).toBe(400)
    expect(answer.data).toMatchObject({ formError: expect.stringContaining('not right') })
    expect(answer.headers.getSetCookie().join('\n')).not.toMatch(/auth-token=base64/)
    for (let i = 0; i < 4; i++) await post({ intent: 'code', email, code: wrong })
    const limited = await post({ intent: 'code', email, code: mail.otp! })
    expect(limited.status).toBe(429)
    expect(limited.data).toMatchObject({ formError: expect.stringMatching(/^Too many attempts/) })
  })

  it('a malformed code is refused before anything is asked', async () => {
    const answer = await post({ intent: 'code', email: newEmail(), code: '12ab' })
    expect(answer.status).toBe(400)
    expect(answer.data).toMatchObject({
      result: { error: { code: ['The code is the 6 digits in the email'] } },
    })
  })
})

describe('send it again', () => {
  it('mails a new confirmation to an address that waits, and answers the same for any address', async () => {
    const email = newEmail()
    await signUp(email)
    const before = (await app.stack.supabase.inbox.list()).filter((m) => m.to === email).length
    await waitOutMailFrequency(app, email) // the auth server sends one a minute
    const waiting = await post({ intent: 'resend', email })
    const unknown = await post({ intent: 'resend', email: newEmail() })
    // Supabase is asked after the answer (mail-requests.server.ts).
    await mailRequestsSettled()
    expect(waiting.status).toBe(200)
    expect(unknown.status).toBe(200)
    const shape = (answer: typeof waiting) =>
      JSON.stringify(answer.data).replace(/code-\d+-\d+@example\.com/g, '<email>')
    expect(shape(unknown)).toBe(shape(waiting))
    const after = (await app.stack.supabase.inbox.list()).filter((m) => m.to === email)
    expect(after).toHaveLength(before + 1)
    expect(after[0].kind).toBe('signup')
    expect(after[0].otp, 'a new code').not.toBe(after[1].otp)
  })
})
