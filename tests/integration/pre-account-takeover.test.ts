import { describe, expect, it } from 'vitest'

import { authErrorMessage } from '../../app/auth/auth-errors'
import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import { authorizeOnConsentPage, latestAuthMail } from './auth-support'
import { browserOn, newEmail, testAppForFile, waitOutMailFrequency } from './harness'

// An unconfirmed account set up first with another person's address keeps its password at
// the auth server (supabase/supabase#29347): the owner's proof of the address must end it.
const app = testAppForFile()
const EARLIER = 'set-up-before-you'
const HERS = 'her-own-password'
const CHOSEN = 'chosen-after-proof'
const CHOOSE_PASSWORD = '/reset-password?notice=choose-password'

/** A sign-up through the page, its mail sent; the auth server's minute between mails waited out. */
async function signUp(email: string, password: string, redirectTo = '') {
  const browser = browserOn(app)
  const answer = await browser.submit('/sign-up', { email, password, redirectTo })
  expect(answer.status).toBe(303)
  await mailRequestsSettled()
  await waitOutMailFrequency(app, email)
  return browser
}

/** The link or code of the newest mail to `email`, a sign-up confirmation. */
async function confirmationMail(email: string) {
  const mail = await latestAuthMail(app, email, 'signup')
  return { link: mail!.link!, code: mail!.otp! }
}

async function signsIn(email: string, password: string) {
  const answer = await browserOn(app).submit('/sign-in', { email, password })
  if (answer.status === 303) return true
  expect(await answer.text()).toContain(authErrorMessage({ code: 'invalid_credentials' }))
  return false
}

/** The owner chooses her password where she was led, and ends on her dashboard (no checkout). */
async function choosePassword(owner: ReturnType<typeof browserOn>) {
  expect((await owner.visit(CHOOSE_PASSWORD)).status).toBe(200)
  const chosen = await owner.submit(CHOOSE_PASSWORD, { password: CHOSEN, confirmPassword: CHOSEN })
  expect(chosen.headers.get('Location')).toBe('/dashboard?notice=password-updated')
  expect((await owner.visit('/dashboard?notice=password-updated')).status).toBe(200)
}

describe('an account set up before its owner arrives', () => {
  it('her confirmation link ends the earlier password and plan; she chooses her own', async () => {
    const email = newEmail('link')
    await signUp(email, EARLIER, '/subscribe/pro')
    const owner = await signUp(email, HERS)
    const callback = await owner.visit((await confirmationMail(email)).link)
    expect(callback.headers.get('Location')).toBe('/dashboard')
    expect(await signsIn(email, EARLIER)).toBe(false)
    expect((await owner.visit('/dashboard')).headers.get('Location')).toBe(CHOOSE_PASSWORD)
    // Her own sign-up came second: it never set a password.
    expect(await signsIn(email, HERS)).toBe(false)
    await choosePassword(owner)
    expect(await signsIn(email, CHOSEN)).toBe(true)
  })

  it('a magic link (the auth server mails the confirmation instead) ends them too', async () => {
    const email = newEmail('magic')
    await signUp(email, EARLIER, '/subscribe/pro')
    const owner = browserOn(app)
    const asked = await owner.submit('/sign-in', { intent: 'magic-link', email })
    expect(asked.headers.get('Location')).toMatch(/^\/sign-in\/confirm\?/)
    await owner.visit((await confirmationMail(email)).link)
    expect(await signsIn(email, EARLIER)).toBe(false)
    expect((await owner.visit('/dashboard')).headers.get('Location')).toBe(CHOOSE_PASSWORD)
    // Led there once; the plan chosen at the first sign-up is not followed.
    expect((await owner.visit('/dashboard')).status).toBe(200)
  })

  it('the mailed code, typed on the check-email page, ends them too', async () => {
    const email = newEmail('code')
    await signUp(email, EARLIER, '/subscribe/pro')
    const owner = await signUp(email, HERS)
    const { code } = await confirmationMail(email)
    const answer = await owner.submit('/sign-up/confirm', { email, code })
    expect(await signsIn(email, EARLIER)).toBe(false)
    expect(answer.headers.get('Location')).toBe(CHOOSE_PASSWORD)
    await choosePassword(owner)
    expect(await signsIn(email, CHOSEN)).toBe(true)
  })

  it('GitHub: the auth server itself drops the password and metadata of the account it links', async () => {
    const email = newEmail('oauth')
    await signUp(email, EARLIER, '/subscribe/pro')
    const owner = browserOn(app)
    const started = await owner.submit('/sign-in', { intent: 'oauth' })
    const target = await authorizeOnConsentPage(started.headers.get('Location')!, email)
    const callback = await owner.visit(`/auth/callback${target.search}`)
    expect(callback.headers.get('Location')).toBe('/dashboard')
    expect(await signsIn(email, EARLIER)).toBe(false)
    expect((await owner.visit('/dashboard')).status).toBe(200)
  })

  it('her own sign-up, confirmed in its own browser, keeps her password and plan; a later sign-up changes nothing', async () => {
    const email = newEmail('hers')
    const owner = await signUp(email, HERS, '/subscribe/pro')
    await signUp(email, EARLIER)
    await owner.visit((await confirmationMail(email)).link)
    expect((await owner.visit('/dashboard')).headers.get('Location')).toBe('/subscribe/pro')
    expect(await signsIn(email, HERS)).toBe(true)
    expect(await signsIn(email, EARLIER)).toBe(false)
  })
})
