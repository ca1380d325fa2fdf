import { describe, expect, it } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import * as dashboardLayout from '../../app/routes/dashboard'
import * as signInPage from '../../app/routes/sign-in'
import * as signInCheck from '../../app/routes/sign-in_.confirm'
import * as signUpPage from '../../app/routes/sign-up'
import * as signUpCheck from '../../app/routes/sign-up_.confirm'
import { callAt, latestAuthMail } from './auth-support'
import { createUser, mergeCookies, newEmail, testAppForFile, waitOutMailFrequency } from './harness'

// Each "Check your email" page takes the code of whichever mail was sent (it cannot say which
// without telling who has an account).
const app = testAppForFile()

async function existingAccount(email: string) {
  return (await createUser(app, email)).id
}

async function signedInAs(headers: Headers) {
  const cookie = mergeCookies('', new Response(null, { headers }))
  const page = await callAt(app, dashboardLayout.loader, '/dashboard', { cookie })
  return page.status === 200 ? (page.data as { user: { id: string; email: string } }).user : null
}

describe('after sign-up', () => {
  it('an address that has an account gets a sign-in mail whose code the page takes', async () => {
    const email = newEmail('again')
    const id = await existingAccount(email)
    const started = await callAt(app, signUpPage.action, '/sign-up', {
      form: { email, password: 'another-passphrase-1' },
    })
    expect(started.status).toBe(303)
    expect(started.headers.get('Location')).toBe(
      `/sign-up/confirm?${new URLSearchParams({ email })}`,
    )
    // The auth server is asked after the answer (mail-requests.server.ts).
    const mail = await latestAuthMail(app, email, 'magiclink')
    expect(mail?.otp).toMatch(/^\d{6}$/)
    const answer = await callAt(app, signUpCheck.action, '/sign-up/confirm', {
      form: { intent: 'code', email, code: mail!.otp! },
    })
    expect(answer.status).toBe(303)
    expect((await signedInAs(answer.headers))?.id).toBe(id)
  })

  it('a wrong code gets the same answer whether or not the address has an account', async () => {
    const existing = newEmail('has-account')
    await existingAccount(existing)
    const fresh = newEmail('no-account')
    for (const email of [existing, fresh]) {
      await callAt(app, signUpPage.action, '/sign-up', {
        form: { email, password: 'another-passphrase-1' },
      })
    }
    const answers = await Promise.all(
      [existing, fresh].map(async (email) => {
        const mail = await app.stack.supabase.inbox.latestFor(email)
        const wrong = mail?.otp === '000000' ? '111111' : '000000'
        const answer = await callAt(app, signUpCheck.action, '/sign-up/confirm', {
          form: { intent: 'code', email, code: wrong },
        })
        return {
          status: answer.status,
          formError: (answer.data as { formError: string }).formError,
        }
      }),
    )
    expect(answers[0]).toEqual(answers[1])
    expect(answers[0].status).toBe(400)
  })
})

describe('after asking for a sign-in link', () => {
  it('the check-email page takes the code of the sign-in mail', async () => {
    const email = newEmail('magic')
    const id = await existingAccount(email)
    const sent = await callAt(app, signInPage.action, '/sign-in', {
      form: { intent: 'magic-link', email, redirectTo: '/dashboard' },
    })
    expect(sent.headers.get('Location')).toMatch(/^\/sign-in\/confirm\?/)
    const mail = await latestAuthMail(app, email, 'magiclink')
    const answer = await callAt(app, signInCheck.action, '/sign-in/confirm', {
      form: { intent: 'code', email, code: mail!.otp! },
    })
    expect([answer.status, answer.headers.get('Location')]).toEqual([303, '/dashboard'])
    expect((await signedInAs(answer.headers))?.id).toBe(id)
  })

  it('a code for an address without an account is just a wrong code', async () => {
    const answer = await callAt(app, signInCheck.action, '/sign-in/confirm', {
      form: { intent: 'code', email: newEmail('nobody'), code: '123456' },
    })
    expect(answer.status).toBe(400)
    expect(answer.data).toMatchObject({ formError: expect.stringContaining('not right') })
  })
})

async function signUp(email: string) {
  const started = await callAt(app, signUpPage.action, '/sign-up', {
    form: { email, password: 'correct-horse-battery' },
  })
  expect(started.status).toBe(303)
  // The auth server is asked after the answer (the same work for any address).
  const mail = await latestAuthMail(app, email, 'signup')
  // The browser that signed up: its code keeps the password it chose.
  return { ...mail!, browser: mergeCookies('', new Response(null, { headers: started.headers })) }
}

const post = (form: Record<string, string>, cookie = '') =>
  callAt(app, signUpCheck.action, '/sign-up/confirm', { form, cookie })

describe('the code from the confirmation mail', () => {
  it('confirms the address and signs in, like the link', async () => {
    const email = newEmail('code')
    const mail = await signUp(email)
    expect(mail.otp).toMatch(/^\d{6}$/)
    const answer = await post({ intent: 'code', email, code: mail.otp! }, mail.browser)
    expect([answer.status, answer.headers.get('Location')]).toEqual([
      303,
      '/dashboard?notice=email-confirmed',
    ])
    expect((await signedInAs(answer.headers))?.email).toBe(email)
  })

  it('a wrong code says so and signs nobody in; guessing is limited per address', async () => {
    const email = newEmail('code')
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
    const answer = await post({ intent: 'code', email: newEmail('code'), code: '12ab' })
    expect(answer.status).toBe(400)
    expect(answer.data).toMatchObject({
      result: { error: { code: ['The code is the 6 digits in the email'] } },
    })
  })
})

it('send it again: mails a new confirmation to an address that waits, and answers the same for any address', async () => {
  const email = newEmail('code')
  await signUp(email)
  const before = (await app.stack.supabase.inbox.list()).filter((m) => m.to === email).length
  await waitOutMailFrequency(app, email) // the auth server sends one a minute
  const waiting = await post({ intent: 'resend', email })
  const unknown = await post({ intent: 'resend', email: newEmail('code') })
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
