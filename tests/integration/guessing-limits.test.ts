import { beforeEach, describe, expect, it } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import { AUTH_RATE_LIMITS } from '../../app/auth/rate-limits.server'
import { MemoryRateLimitStore, setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import * as dashboardLayout from '../../app/routes/dashboard'
import * as settingsAccount from '../../app/routes/dashboard.settings.account'
import * as signInPage from '../../app/routes/sign-in'
import * as signUpPage from '../../app/routes/sign-up'
import * as checkEmail from '../../app/routes/sign-up_.confirm'
import { PASSWORD } from './accounts'
import { callAt, latestAuthMail, type RouteOutcome } from './auth-support'
import { createSignedInUser, mergeCookies, newEmail, testAppForFile } from './harness'

// Per-account ceilings hold whatever the number of clients, and never lock the owner out.
// One proxy in front: the client is the last X-Forwarded-For entry.
const app = testAppForFile({ env: { TRUSTED_PROXY_COUNT: '1' } })

beforeEach(() => setRateLimitStore(new MemoryRateLimitStore()))

const signIn = (ip: string, email: string, password: string) =>
  callAt(app, signInPage.action, '/sign-in', { form: { intent: 'password', email, password }, ip })

function sessionCookie(outcome: RouteOutcome) {
  return mergeCookies('', new Response(null, { headers: outcome.headers }))
}

async function signedInAs(cookie: string) {
  const page = await callAt(app, dashboardLayout.loader, '/dashboard', { cookie })
  return page.status === 200 ? (page.data as { user: { email: string } }).user.email : null
}

async function notices(email: string) {
  // Queued after the answer.
  await mailRequestsSettled()
  const { rows } = await app.stack.database.query<{ data: { flow: string; minutes: number } }>(
    `select data from public.notification_outbox where kind = 'attempts_limited' and to_address = $1`,
    [email],
  )
  return rows.map((row) => row.data)
}

describe('sign-in: a ceiling per address over all clients', () => {
  it('forty wrong passwords from four clients, then the right one from a fifth: refused, with the emailed link offered, which still signs the owner in', async () => {
    const user = await createSignedInUser(app)
    const answers: number[] = []
    for (const client of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']) {
      for (let i = 0; i < 10; i++)
        answers.push((await signIn(client, user.email, `wrong-${i}`)).status)
    }
    const { limit } = AUTH_RATE_LIMITS['sign-in'].account!
    // The first attempts are checked (wrong password); past the ceiling none is.
    expect(answers.slice(0, limit)).toEqual(Array(limit).fill(400))
    expect(answers.slice(limit)).toEqual(Array(40 - limit).fill(429))

    const right = await signIn('198.51.100.5', user.email, PASSWORD)
    expect(right.status).toBe(429)
    expect(Number(right.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect(right.data).toMatchObject({
      intent: 'password',
      formError: expect.stringMatching(
        /password sign-in is paused for \d+ minutes?\. We can email you a sign-in link instead\./,
      ),
      linkFor: user.email,
    })
    expect(await signedInAs(sessionCookie(right))).toBeNull()

    // The owner is told, once for the window however many attempts followed.
    expect(await notices(user.email)).toEqual([
      expect.objectContaining({ flow: 'sign-in', minutes: expect.any(Number) }),
    ])

    // And still gets in by the offered button: intent magic-link with the address.
    const asked = await callAt(app, signInPage.action, '/sign-in', {
      form: { intent: 'magic-link', email: user.email, redirectTo: '/dashboard' },
      ip: '198.51.100.5',
    })
    expect(asked.status).toBe(303)
    await mailRequestsSettled()
    const browser = sessionCookie(asked)
    const mail = await latestAuthMail(app, user.email, 'magiclink')
    const opened = await fetch(mail!.link!, { redirect: 'manual', headers: { Cookie: browser } })
    expect([opened.status, opened.headers.get('Location')]).toEqual([302, '/dashboard'])
    expect(await signedInAs(mergeCookies(browser, opened))).toBe(user.email)
  })

  it('an address without an account pauses the same (no enumeration) and nobody is mailed', async () => {
    const email = newEmail('nobody')
    for (let i = 0; i < 20; i++) await signIn(`198.51.100.${30 + (i % 2)}`, email, `x-${i}`)
    const answer = await signIn('198.51.100.40', email, PASSWORD)
    expect(answer.status).toBe(429)
    expect(answer.data).toMatchObject({ linkFor: email })
    expect(await notices(email)).toEqual([])
  })
})

describe('IPv6 clients are keyed by /64', () => {
  it('addresses within one /64 share one budget; the next /64 has its own', async () => {
    const { limit } = AUTH_RATE_LIMITS['sign-in'].client
    for (let i = 0; i < limit; i++) {
      // A fresh address (and address to try) each time, all in 2001:db8:1:2::/64.
      const ip = `2001:db8:1:2:${(i + 1).toString(16)}::${(i * 7 + 3).toString(16)}`
      expect((await signIn(ip, newEmail('spray'), 'x')).status).toBe(400)
    }
    const limited = await signIn('2001:db8:1:2:ffff:ffff:ffff:fffe', newEmail('spray'), 'x')
    expect(limited.status).toBe(429)
    expect(limited.data).toMatchObject({ formError: expect.stringMatching(/^Too many attempts/) })
    expect((await signIn('2001:db8:1:3::1', newEmail('spray'), 'x')).status).toBe(400)
  })

  it('one account’s per-client budget is not renewed by changing address within the /64', async () => {
    const user = await createSignedInUser(app)
    const { limit } = AUTH_RATE_LIMITS['sign-in'].email
    for (let i = 0; i < limit; i++) {
      expect((await signIn(`2001:db8:9:9::${i + 1}`, user.email, `x-${i}`)).status).toBe(400)
    }
    expect((await signIn('2001:db8:9:9::abcd', user.email, PASSWORD)).status).toBe(429)
  })
})

describe('the current password in Account settings: a ceiling per user', () => {
  const guess = (ip: string, cookie: string, currentPassword: string) =>
    callAt(app, settingsAccount.action, '/dashboard/settings/account', {
      cookie,
      form: {
        intent: 'change-password',
        currentPassword,
        password: 'a-new-password-42',
        confirmPassword: 'a-new-password-42',
      },
      ip,
    })

  it('guesses from many clients reach it; then even the right password is refused, and a reset link is offered', async () => {
    const user = await createSignedInUser(app)
    const { limit } = AUTH_RATE_LIMITS['password-check'].account!
    const perClient = AUTH_RATE_LIMITS['password-check'].email.limit
    for (let i = 0; i < limit; i++) {
      const ip = `192.0.2.${1 + Math.floor(i / perClient)}`
      expect((await guess(ip, user.cookie, `guess-${i}`)).status).toBe(400)
    }
    const right = await guess('192.0.2.99', user.cookie, PASSWORD)
    expect(right.status).toBe(429)
    expect(right.data).toMatchObject({
      intent: 'change-password',
      offerResetLink: true,
      result: { error: { '': [expect.stringMatching(/changing the password here is paused/)] } },
    })
    expect(JSON.stringify(right.data)).not.toContain(PASSWORD)
    expect(await notices(user.email)).toEqual([expect.objectContaining({ flow: 'password-check' })])

    // The way that still works: a reset link mailed to the account's own address.
    const reset = await callAt(app, settingsAccount.action, '/dashboard/settings/account', {
      cookie: user.cookie,
      form: { intent: 'send-reset-link' },
      ip: '192.0.2.99',
    })
    expect(reset.status).toBe(200)
    expect(reset.data).toMatchObject({
      intent: 'change-password',
      message: expect.stringContaining(`We emailed a reset link to ${user.email}`),
    })
    await latestAuthMail(app, user.email, 'recovery')
  })
})

it('the sign-up code: a ceiling per address: codes tried from many clients reach it; the right code is then refused, the mail’s link still confirms', async () => {
  const email = newEmail('code')
  const started = await callAt(app, signUpPage.action, '/sign-up', {
    form: { email, password: PASSWORD },
    ip: '192.0.2.200',
  })
  expect(started.status).toBe(303)
  const browser = sessionCookie(started)
  const mail = await latestAuthMail(app, email, 'signup')
  const wrong = mail!.otp === '000000' ? '111111' : '000000'
  const post = (ip: string, code: string) =>
    callAt(app, checkEmail.action, '/sign-up/confirm', {
      form: { intent: 'code', email, code },
      ip,
    })
  const { limit } = AUTH_RATE_LIMITS['email-code'].account!
  const perClient = AUTH_RATE_LIMITS['email-code'].email.limit
  for (let i = 0; i < limit; i++) {
    expect((await post(`192.0.2.${210 + Math.floor(i / perClient)}`, wrong)).status).toBe(400)
  }
  const right = await post('192.0.2.230', mail!.otp!)
  expect(right.status).toBe(429)
  expect(right.data).toMatchObject({
    formError: expect.stringMatching(
      /codes are paused for \d+ minutes?\. Open the link in the email instead/,
    ),
  })
  expect(await notices(email)).toEqual([expect.objectContaining({ flow: 'email-code' })])

  const opened = await fetch(mail!.link!, { redirect: 'manual', headers: { Cookie: browser } })
  expect([opened.status, opened.headers.get('Location')]).toEqual([302, '/dashboard'])
  expect(await signedInAs(mergeCookies(browser, opened))).toBe(email)
})
