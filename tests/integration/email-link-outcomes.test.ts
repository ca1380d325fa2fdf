import { describe, expect, it } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import * as confirmPage from '../../app/routes/auth.confirm'
import * as dashboardOverview from '../../app/routes/dashboard._index'
import * as account from '../../app/routes/dashboard.settings.account'
import * as signInPage from '../../app/routes/sign-in'
import * as linkSent from '../../app/routes/sign-in_.confirm'
import * as signUpPage from '../../app/routes/sign-up'
import * as checkEmail from '../../app/routes/sign-up_.confirm'
import { PASSWORD } from './accounts'
import { askedForLinkCookie, callRoute, hashedToken } from './auth-support'
import {
  adminClient,
  createSignedInUser,
  createUser,
  mergeCookies,
  newEmail,
  testAppForFile,
} from './harness'
import { formPost, pageGet } from './settings-support'

// Where emailed links lead when they half-work or fail.
const app = testAppForFile()
const ACCOUNT = '/dashboard/settings/account'
const FAILED = '/sign-in?error=auth_failed'

/** GET /auth/callback the way a browser follows a mailed link (no redirect followed). */
async function openLink(link: string, cookie = '') {
  const url = new URL(link)
  const response = await fetch(`${app.url}${url.pathname}${url.search}`, {
    redirect: 'manual',
    headers: cookie ? { Cookie: cookie } : {},
  })
  return { response, location: response.headers.get('Location') }
}

async function accountNotice(cookie: string) {
  const page = await callRoute<{
    emailNotice: string | null
    opened: { current: boolean; new: boolean } | null
  }>(account.loader, pageGet(`${app.url}${ACCOUNT}?email=confirmed`, cookie))
  expect(page.status).toBe(200)
  return { notice: page.data.emailNotice, opened: page.data.opened }
}

describe('email change: each link says where the change stands and keeps the session', () => {
  async function askForChange() {
    const user = await createSignedInUser(app, newEmail('change-from'))
    const next = newEmail('change-to')
    const answer = await callRoute(
      account.action,
      formPost(`${app.url}${ACCOUNT}`, user.cookie, {
        intent: 'change-email',
        email: next,
        currentPassword: 'correct-horse-battery',
      }),
    )
    expect(answer.status).toBe(200)
    const cookie = mergeCookies(user.cookie, new Response(null, { headers: answer.headers }))
    // The auth server is asked after the answer (mail-requests.server.ts).
    await mailRequestsSettled()
    const toCurrent = await app.stack.supabase.inbox.latestFor(user.email)
    const toNew = await app.stack.supabase.inbox.latestFor(next)
    expect(toCurrent?.kind).toBe('email_change')
    expect(toNew?.kind).toBe('email_change')
    return { user, next, cookie, toCurrent: toCurrent!.link!, toNew: toNew!.link! }
  }

  it('the current address first: 1 of 2, name the new address; then the change is done', async () => {
    const { user, next, cookie, toCurrent, toNew } = await askForChange()
    const first = await openLink(toCurrent, cookie)
    expect(first.location).toBe(`${ACCOUNT}?email=confirmed`)
    // Nothing signed out: no session cookie is cleared or replaced.
    expect(first.response.headers.getSetCookie().join('\n')).not.toMatch(/auth-token/)
    const afterFirst = mergeCookies(cookie, first.response)
    expect(await accountNotice(afterFirst)).toEqual({
      notice: null,
      opened: { current: true, new: false },
    })
    const second = await openLink(toNew, afterFirst)
    expect(second.location).toBe(`${ACCOUNT}?email=confirmed`)
    const afterSecond = mergeCookies(afterFirst, second.response)
    expect(await accountNotice(afterSecond)).toEqual({
      notice: `Your email address is now ${next}.`,
      opened: null,
    })
    const { data } = await adminClient(app).auth.admin.getUserById(user.id)
    expect(data.user?.email).toBe(next)
  })

  it('the new address first: 1 of 2, name the current address', async () => {
    const { cookie, toNew } = await askForChange()
    const first = await openLink(toNew, cookie)
    expect(first.location).toBe(`${ACCOUNT}?email=confirmed`)
    const { opened } = await accountNotice(mergeCookies(cookie, first.response))
    expect(opened).toEqual({ current: false, new: true })
  })

  it('a first link opened on a signed-out device asks to sign in and says why', async () => {
    const { toCurrent } = await askForChange()
    const link = new URL(toCurrent)
    const confirmed = await callRoute(
      confirmPage.action,
      formPost(`${app.url}/auth/confirm`, '', {
        token_hash: link.searchParams.get('token_hash')!,
        type: 'email_change',
        next: link.searchParams.get('next')!,
      }),
    )
    expect(confirmed.status).toBe(303)
    const location = new URL(confirmed.location!, app.url)
    expect(location.pathname).toBe('/sign-in')
    expect(location.searchParams.get('notice')).toBe('email-change-half-confirmed')
    expect(location.searchParams.get('redirectTo')).toBe(`${ACCOUNT}?email=confirmed`)
  })
})

describe('a failed link keeps the spec location and says why on the sign-in page', () => {
  async function signInPageAfter(response: Response) {
    const cookie = mergeCookies('', response)
    const page = await callRoute<{ pageError: string; failureReason: string | null }>(
      signInPage.loader,
      pageGet(`${app.url}${FAILED}`, cookie),
    )
    return { page, again: mergeCookies(cookie, new Response(null, { headers: page.headers })) }
  }

  it('a used reset link: "send a new link"; the reason is said once', async () => {
    const email = newEmail('reset-used')
    await createUser(app, email)
    const query = `token_hash=${await hashedToken(app, 'recovery', email)}&type=recovery`
    const asked = await askedForLinkCookie(app, email)
    const used = await openLink(`${app.url}/auth/callback?${query}`, asked)
    expect(used.location).toBe('/reset-password')
    const again = await openLink(`${app.url}/auth/callback?${query}`, asked)
    expect(again.location).toBe(FAILED)
    const { page, again: cookie } = await signInPageAfter(again.response)
    expect(page.data.failureReason).toBe('recovery')
    expect(page.data.pageError).toMatch(/^That password reset link isn't valid or has expired/)
    const later = await callRoute<{ failureReason: string | null }>(
      signInPage.loader,
      pageGet(`${app.url}${FAILED}`, cookie),
    )
    expect(later.data.failureReason).toBeNull()
  })

  it('a used confirmation link: "send the confirmation again"', async () => {
    const failed = await openLink(
      `${app.url}/auth/callback?token_hash=deadbeef&type=signup`,
      await askedForLinkCookie(app, 'someone@example.com'),
    )
    expect(failed.location).toBe(FAILED)
    const { page } = await signInPageAfter(failed.response)
    expect(page.data.failureReason).toBe('signup')
  })
})

describe('a sign-up confirmed on another device', () => {
  it('that device chooses its password, without the plan; the waiting page moves on to sign in', async () => {
    const email = newEmail('other-device')
    const signedUp = await callRoute(
      signUpPage.action,
      formPost(`${app.url}/sign-up`, '', {
        email,
        password: PASSWORD,
        redirectTo: '/subscribe/pro',
      }),
    )
    expect(signedUp.status).toBe(303)
    const desktop = mergeCookies('', new Response(null, { headers: signedUp.headers }))
    const waiting = `${app.url}/sign-up/confirm?${new URLSearchParams({ email })}`
    const before = await callRoute(checkEmail.loader, pageGet(waiting, desktop))
    expect(before.status).toBe(200)

    // The phone: no cookies of the desktop; the link asks first, then signs in there. It
    // cannot show that the desktop's password is its own (docs/security.md).
    await mailRequestsSettled()
    const mail = await app.stack.supabase.inbox.latestFor(email)
    const link = new URL(mail!.link!)
    const confirmed = await callRoute(
      confirmPage.action,
      formPost(`${app.url}/auth/confirm`, '', {
        token_hash: link.searchParams.get('token_hash')!,
        type: 'signup',
        next: '/dashboard',
      }),
    )
    expect(confirmed.location).toBe('/dashboard')
    const phone = mergeCookies('', new Response(null, { headers: confirmed.headers }))
    const dashboard = await callRoute(
      dashboardOverview.loader,
      pageGet(`${app.url}/dashboard`, phone),
    )
    expect(dashboard.location).toBe('/reset-password?notice=choose-password')
    const phoneAfter = mergeCookies(phone, new Response(null, { headers: dashboard.headers }))
    const again = await callRoute(
      dashboardOverview.loader,
      pageGet(`${app.url}/dashboard`, phoneAfter),
    )
    expect(again.status).toBe(200)

    // The desktop's waiting page notices and moves on to sign in, with the address.
    const after = await callRoute(checkEmail.loader, pageGet(waiting, desktop))
    expect(after.status).toBe(302)
    const next = new URL(after.location!, app.url)
    expect(next.pathname).toBe('/sign-in')
    expect(next.searchParams.get('notice')).toBe('confirmed-sign-in')
    expect(next.searchParams.get('email')).toBe(email)
  })

  it('another browser cannot ask about an address it did not sign up', async () => {
    const user = await createSignedInUser(app, newEmail('not-mine'))
    const waiting = `${app.url}/sign-up/confirm?${new URLSearchParams({ email: user.email })}`
    const page = await callRoute(checkEmail.loader, pageGet(waiting, ''))
    expect(page.status).toBe(200)
  })
})

describe('the check-email pages send a signed-in visitor to the dashboard', () => {
  it.each([
    ['/sign-up/confirm?email=x%40example.com', checkEmail.loader],
    ['/sign-in/confirm?email=x%40example.com', linkSent.loader],
  ])('%s', async (path, loader) => {
    const user = await createSignedInUser(app, newEmail('signed-in'))
    const page = await callRoute(loader, pageGet(`${app.url}${path}`, user.cookie))
    expect(page).toMatchObject({ status: 302, location: '/dashboard' })
    const anonymous = await callRoute(loader, pageGet(`${app.url}${path}`, ''))
    expect(anonymous.status).toBe(200)
  })
})
