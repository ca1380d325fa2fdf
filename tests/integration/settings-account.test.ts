import type { SupabaseClient } from '@supabase/supabase-js'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import { getPlans } from '../../app/billing/plans.server'
import type { FormReply } from '../../app/lib/forms/form-reply'
import { logger } from '../../app/lib/server/logger.server'
import * as dashboard from '../../app/routes/dashboard'
import * as account from '../../app/routes/dashboard.settings.account'
import * as billing from '../../app/routes/dashboard.settings.billing'
import * as general from '../../app/routes/dashboard.settings.general'
import { PASSWORD } from './accounts'
import { callRoute, cookieMap, latestAuthMail, readSession } from './auth-support'
import {
  adminClient,
  createGitHubUser,
  createSignedInUser,
  emulatorStripe,
  mergeCookies,
  rowsWhere,
  signInAs,
  stripeSubscriber,
  subscriptionRowOf,
  testAppForFile,
} from './harness'
import { emulatorPolar, polarCheckout } from './polar-fixtures'
import { formPost, pageGet, pngBytes, userApiClient } from './settings-support'

/** The Account settings page: password, email, sessions and account deletion. */
const app = testAppForFile()
let admin: SupabaseClient
type User = Awaited<ReturnType<typeof createSignedInUser>>

const ACCOUNT = '/dashboard/settings/account'
const postAccount = (user: User, fields: Record<string, string>) =>
  callRoute<FormReply>(account.action, formPost(`${app.url}${ACCOUNT}`, user.cookie, fields))

/** Deletes the account as the form does, with the current password unless told otherwise. */
const deleteAccount = (user: User, proof: Record<string, string> = { currentPassword: PASSWORD }) =>
  postAccount(user, { intent: 'delete-account', confirm: 'DELETE', ...proof })
/** Asks to move to `email`, with the current password unless told otherwise. */
const changeEmail = (
  user: User,
  email: string,
  proof: Record<string, string> = { currentPassword: PASSWORD },
) => postAccount(user, { intent: 'change-email', email, ...proof })

async function userExists(id: string) {
  const { data } = await admin.auth.admin.getUserById(id)
  return Boolean(data.user)
}
const rowCount = async (table: string, user_id: string) =>
  (await rowsWhere(app, table, { user_id })).length
beforeAll(() => {
  admin = adminClient(app)
})

describe('password', () => {
  const fields = { intent: 'change-password', confirmPassword: 'a-new-password-42' }

  it('refuses a wrong current password and keeps the old one', async () => {
    const user = await createSignedInUser(app)
    const answer = await postAccount(user, {
      ...fields,
      currentPassword: 'not-my-password',
      password: 'a-new-password-42',
    })
    expect(answer.status).toBe(400)
    expect(answer.data.result.error?.currentPassword).toEqual(['That is not your current password'])
    await expect(userApiClient(app, user.email)).resolves.toBeTruthy()
  })

  it('a limit at the auth server during the check says to wait, not that the password is wrong', async () => {
    const user = await createSignedInUser(app)
    app.stack.supabase.addFault({ method: 'POST', path: '/auth/v1/token', status: 429, count: 1 })
    const answer = await postAccount(user, {
      ...fields,
      currentPassword: 'correct-horse-battery',
      password: 'a-new-password-42',
    })
    expect(answer.status).toBe(400)
    expect(answer.data.result.error?.currentPassword).toBeUndefined()
    expect(answer.data.result.error?.['']).toEqual([
      'Too many attempts. Please wait a minute and try again.',
    ])
  })

  it("changes the password after checking the current one, ending the user's other sessions at once and keeping this browser's", async () => {
    const user = await createSignedInUser(app)
    const laptop = await signInAs(app, user.email)
    const page = (cookie: string) =>
      callRoute(dashboard.loader, pageGet(`${app.url}/dashboard`, cookie))
    expect((await page(laptop)).status).toBe(200)
    const answer = await postAccount(user, {
      ...fields,
      currentPassword: 'correct-horse-battery',
      password: 'a-new-password-42',
    })
    expect(answer.status).toBe(200)
    expect(answer.data.message).toBe('Your password has been changed.')
    await expect(userApiClient(app, user.email)).rejects.toThrow()
    expect(await canSignInWith(user.email, 'a-new-password-42')).toBe(true)
    expect((await page(user.cookie)).status).toBe(200)
    const ended = await page(laptop)
    expect(ended.status).toBe(302)
    expect(ended.location).toMatch(/^\/sign-in\?redirectTo=/)
  })

  it('a stolen session cookie alone cannot change the password at the auth server', async () => {
    const user = await createSignedInUser(app)
    // What the cookie holds: Supabase's own access token, sent straight to PUT /auth/v1/user.
    const { access_token } = readSession(cookieMap(user.cookie))!
    const response = await fetch(`${app.stack.env.SUPABASE_URL}/auth/v1/user`, {
      method: 'PUT',
      headers: {
        apikey: app.stack.env.SUPABASE_ANON_KEY,
        authorization: `Bearer ${access_token}`,
        'content-type': 'application/json',
        'x-supabase-api-version': '2024-01-01',
      },
      body: JSON.stringify({ password: 'the-thief-s-password' }),
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'current_password_required' })
    expect(await canSignInWith(user.email, 'correct-horse-battery')).toBe(true)
    expect(await canSignInWith(user.email, 'the-thief-s-password')).toBe(false)
  })
})

type AccountPage = { methods: { password: boolean; github: boolean }; pendingEmail: string }
const accountPage = ({ cookie }: { cookie: string }) =>
  callRoute<AccountPage>(account.loader, pageGet(`${app.url}${ACCOUNT}`, cookie))

const canSignInWith = (email: string, password: string) =>
  signInAs(app, email, password).then(
    () => true,
    () => false,
  )

/** Makes every session of the user older than Supabase's 24-hour "recent sign-in". */
async function ageSessions(userId: string) {
  await app.stack.database.query(
    `update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`,
    [userId],
  )
}

describe('sign-in methods and a first password (GitHub accounts)', () => {
  const first = 'first-password-42'
  const setPassword = (user: User, password = first, fields: Record<string, string> = {}) =>
    postAccount(user, { intent: 'set-password', password, confirmPassword: password, ...fields })

  it('shows email and password for an account that signed up with one', async () => {
    const user = await createSignedInUser(app)
    expect((await accountPage(user)).data.methods).toEqual({ password: true, github: false })
  })

  it('lets a GitHub user set a password without a current one, then shows both methods', async () => {
    const user = await createGitHubUser(app)
    expect((await accountPage(user)).data.methods).toEqual({ password: false, github: true })
    const answer = await setPassword(user)
    expect(answer.status).toBe(200)
    expect(answer.data.message).toContain('Your password is set')
    expect(await canSignInWith(user.email, first)).toBe(true)
    // GoTrue adds no email identity: the page knows from what the app recorded.
    const { data } = await admin.auth.admin.getUserById(user.id)
    expect(data.user?.identities?.map((identity) => identity.provider)).toEqual(['github'])
    expect((await accountPage(user)).data.methods).toEqual({ password: true, github: true })
    // From now on the current password is asked for: set-password is refused.
    const again = await setPassword(user, 'second-password-42')
    expect(again.status).toBe(400)
    expect(again.data.result.error?.['']).toEqual([
      'Your account already has a password: change it above.',
    ])
    expect(await canSignInWith(user.email, 'second-password-42')).toBe(false)
  })

  it('checks the two passwords match and their strength, in the documented shape', async () => {
    const user = await createGitHubUser(app)
    const answer = await setPassword(user, first, { confirmPassword: 'other-password-42' })
    expect(answer.status).toBe(400)
    expect(answer.data.result.error?.confirmPassword).toEqual(['The passwords do not match'])
    const short = await setPassword(user, 'x')
    expect(short.status).toBe(400)
    expect(short.data.result.error?.password?.[0]).toMatch(/at least/i)
  })

  it('asks a session older than 24 hours for the emailed code, then sets the password', async () => {
    const user = await createGitHubUser(app)
    await ageSessions(user.id)
    const asked = await setPassword(user)
    expect(asked.status).toBe(400)
    expect(asked.data.needsCode).toBe(true)
    expect(asked.data.result.error?.['']?.[0]).toContain(`emailed a 6-digit code to ${user.email}`)
    const mail = await latestAuthMail(app, user.email, 'reauthentication')
    expect(await canSignInWith(user.email, first)).toBe(false)

    const wrong = await setPassword(user, first, { code: '00000x' })
    expect(wrong.status).toBe(400)
    expect(wrong.data.needsCode).toBe(true)
    expect(wrong.data.result.error?.code).toEqual(['The code is the 6 digits in the email'])

    const ok = await setPassword(user, first, { code: mail.otp! })
    expect(ok.status).toBe(200)
    expect(await canSignInWith(user.email, first)).toBe(true)
  })

  it('asks for the code on a password change from an older session too', async () => {
    const user = await createSignedInUser(app)
    await ageSessions(user.id)
    const change = {
      intent: 'change-password',
      currentPassword: 'correct-horse-battery',
      password: 'a-new-password-43',
      confirmPassword: 'a-new-password-43',
    }
    const asked = await postAccount(user, change)
    expect(asked.data.needsCode).toBe(true)
    const otp = (await latestAuthMail(app, user.email, 'reauthentication')).otp!
    const stale = String((Number(otp) + 1) % 1_000_000).padStart(6, '0')
    const refused = await postAccount(user, { ...change, code: stale })
    expect(refused.data.result.error?.code?.[0]).toContain('wrong or has expired')
    const ok = await postAccount(user, { ...change, code: otp })
    expect(ok.status).toBe(200)
    expect(await canSignInWith(user.email, 'a-new-password-43')).toBe(true)
  })

  it('counts set-password tries against the password-check limit (5 per account)', async () => {
    const user = await createGitHubUser(app)
    await ageSessions(user.id)
    const statuses = []
    for (let i = 0; i < 6; i++) {
      statuses.push((await setPassword(user)).status)
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429])
  })
})

describe('email', () => {
  it('sends a confirmation link to the new address and shows it as pending', async () => {
    const user = await createSignedInUser(app)
    const next = `new-${user.email}`
    const answer = await changeEmail(user, next.toUpperCase())
    expect(answer.status).toBe(200)
    expect(answer.data.message).toContain(next)
    // The auth server is asked after the answer (the same work for any address).
    await mailRequestsSettled()
    const mail = await app.stack.supabase.inbox.latestFor(next)
    expect(mail?.link).toContain(`${app.url}/auth/callback`)
    expect(mail?.link).toContain('type=email_change')
    expect((await accountPage(user)).data).toMatchObject({ email: user.email, pendingEmail: next })
  })

  it('answers the same for an address another account uses; its owner is told by mail', async () => {
    const user = await createSignedInUser(app)
    const other = await createSignedInUser(app)
    const fresh = `free-${user.email}`
    /** What the person asking can see: the answer, then the page. */
    async function observed(address: string) {
      const answer = await changeEmail(user, address)
      const cookie = mergeCookies(user.cookie, new Response(null, { headers: answer.headers }))
      const page = await accountPage({ cookie })
      return {
        status: answer.status,
        message: answer.data.message?.replace(address, '<address>'),
        error: answer.data.result.error ?? null,
        pending: page.data.pendingEmail === address,
      }
    }
    const forTaken = await observed(other.email)
    const forFree = await observed(fresh)
    expect(forTaken).toEqual(forFree)
    expect(forTaken).toMatchObject({ status: 200, error: null, pending: true })
    // The owner of the taken address gets a sign-in link that says what happened; their
    // account is untouched.
    await latestAuthMail(app, other.email, 'magiclink')
    const { data } = await admin.auth.admin.getUserById(other.id)
    expect(data.user?.email).toBe(other.email)
  })
})

describe('sign out of all sessions', () => {
  const dashboardPage = (cookie: string) =>
    callRoute(dashboard.loader, pageGet(`${app.url}/dashboard`, cookie))
  const polarPortal = (cookie: string) =>
    fetch(`${app.url}/api/portal`, { headers: { Cookie: cookie } })

  it('ends every session of the user: a stolen copy of the cookie and every other session are refused on their next request', async () => {
    const user = await createSignedInUser(app)
    const stolen = user.cookie // the same session, copied to another machine
    const laptop = await signInAs(app, user.email) // a session of its own
    const elsewhere = await userApiClient(app, user.email)
    // Both work, and have been verified (and remembered) by this process.
    for (const cookie of [stolen, laptop]) expect((await dashboardPage(cookie)).status).toBe(200)

    const answer = await postAccount(user, { intent: 'sign-out-everywhere' })
    expect(answer).toMatchObject({ status: 303, location: '/sign-in?notice=signed-out-everywhere' })
    expect(answer.headers.getSetCookie().join('\n')).toMatch(/sb-[^=]+-auth-token=;/)
    expect((await elsewhere.auth.refreshSession()).error).not.toBeNull()

    for (const cookie of [stolen, laptop]) {
      const page = await dashboardPage(cookie)
      expect(page.status).toBe(302)
      expect(page.location).toMatch(/^\/sign-in\?redirectTo=/)
      expect(new URL(page.location!, app.url).searchParams.get('notice')).toBe(
        'session-ended-elsewhere',
      )
      expect(page.headers.getSetCookie().join('\n')).toMatch(/sb-[^=]+-auth-token=;/)
      expect((await polarPortal(cookie)).status).toBe(401)
      const deletion = await deleteAccount({ ...user, cookie })
      expect(deletion.location).toMatch(/^\/sign-in/)
    }
    expect(await userExists(user.id)).toBe(true)
  })

  it('refuses a copy of the cookie once that browser signed out', async () => {
    const user = await createSignedInUser(app)
    expect((await dashboardPage(user.cookie)).status).toBe(200)
    const signOut = await fetch(`${app.url}/sign-out`, {
      method: 'POST',
      headers: { Cookie: user.cookie },
      redirect: 'manual',
    })
    expect(signOut.status).toBe(303)
    expect((await dashboardPage(user.cookie)).status).toBe(302)
  })

  it('page views never ask the auth server; destructive actions always do', async () => {
    const user = await createSignedInUser(app)
    const userCalls = () => app.stack.supabase.countsByPath()['/user'] ?? 0
    await dashboardPage(user.cookie)
    const before = userCalls()
    for (let i = 0; i < 3; i++) expect((await dashboardPage(user.cookie)).status).toBe(200)
    expect(userCalls()).toBe(before)

    // A wrong current password changes nothing, but the session was confirmed first.
    await postAccount(user, {
      intent: 'change-password',
      currentPassword: 'not-my-password',
      password: 'a-new-password-42',
      confirmPassword: 'a-new-password-42',
    })
    expect(userCalls()).toBe(before + 1)
    // The confirmation, then the change itself (PUT /user, after the answer).
    await changeEmail(user, `other-${user.email}`)
    await mailRequestsSettled()
    expect(userCalls()).toBe(before + 3)
    await callRoute(
      billing.action,
      formPost(`${app.url}/dashboard/settings/billing`, user.cookie, {}),
    )
    expect(userCalls()).toBe(before + 4)
    await polarPortal(user.cookie)
    expect(userCalls()).toBe(before + 5)
  })
})

describe('account deletion', () => {
  it('needs the confirmation word', async () => {
    const user = await createSignedInUser(app)
    const answer = await postAccount(user, { intent: 'delete-account', confirm: 'yes' })
    expect(answer.status).toBe(400)
    expect(answer.data.result.error?.confirm).toEqual(['Type DELETE to confirm'])
    expect(await userExists(user.id)).toBe(true)
  })

  it('with a live Stripe subscription: cancels it at Stripe, then removes the user, rows and files', async () => {
    const user = await createSignedInUser(app)
    const { subscription } = await stripeSubscriber(app, user)
    await callRoute(
      general.action,
      formPost(`${app.url}/dashboard/settings/general`, user.cookie, {
        intent: 'avatar',
        avatar: new File([pngBytes()], 'a.png', { type: 'image/png' }),
      }),
    )
    const answer = await deleteAccount(user)
    expect(answer).toMatchObject({ status: 303, location: '/account-deleted' })
    expect(answer.headers.getSetCookie().join('\n')).toMatch(/sb-[^=]+-auth-token=;/)
    expect((await emulatorStripe(app).subscriptions.retrieve(subscription.id)).status).toBe(
      'canceled',
    )
    expect(await userExists(user.id)).toBe(false)
    for (const table of ['user_profiles', 'user_subscriptions', 'payment_history']) {
      expect(await rowCount(table, user.id)).toBe(0)
    }
    const { data: files } = await admin.storage.from('profile-images').list(user.id)
    expect(files).toEqual([])
    // The cancellation webhook that follows finds no user and is still answered 2xx.
    await app.stack.stripe.idle()
    const deleted = app.stack.stripe
      .deliveries()
      .filter((delivery) => delivery.type === 'customer.subscription.deleted')
    expect(deleted.at(-1)?.status).toBe(200)
    // One mail about it, naming the canceled plan, and nothing else for that address.
    const { data: mails } = await admin
      .from('notification_outbox')
      .select('kind, user_id, data')
      .eq('to_address', user.email)
    expect(mails).toEqual([
      {
        kind: 'account_deleted',
        user_id: null,
        data: expect.objectContaining({ canceled_plan: expect.any(String) as unknown }) as unknown,
      },
    ])
  })

  it('refuses, and deletes nothing, when Stripe cannot cancel the subscription', async () => {
    const user = await createSignedInUser(app)
    const { subscription } = await stripeSubscriber(app, user)
    app.stack.stripe.injectFault({
      method: 'DELETE',
      path: '/v1/subscriptions',
      status: 500,
      count: 5,
    })
    try {
      const answer = await deleteAccount(user)
      expect(answer.status).toBe(503)
      expect(answer.data.result.error?.['']).toEqual([
        expect.stringContaining('your account has not been deleted'),
      ])
    } finally {
      app.stack.stripe.clearFaults()
    }
    expect(await userExists(user.id)).toBe(true)
    expect((await emulatorStripe(app).subscriptions.retrieve(subscription.id)).status).toBe(
      'active',
    )
    expect(await rowCount('user_subscriptions', user.id)).toBe(1)
    // The account's mails go on as before (the deletion mark is taken off again).
    const { data } = await admin.auth.admin.getUserById(user.id)
    expect(data.user?.app_metadata).not.toHaveProperty('deletion_started_at')
  })

  it('ends every subscription that may still charge, including one the row never tracked', async () => {
    const user = await createSignedInUser(app)
    const product = getPlans()[0].ids.polar
    const metadata = JSON.stringify({ user_id: user.id })
    const tracked = await polarCheckout(app, { products: product, metadata }, user.cookie)
    const first = await app.stack.polar.completeCheckout(
      new URL(tracked.headers.get('location') ?? '').pathname.split('/').pop() as string,
    )
    // A second purchase for the same customer that names no user: the row never sees it
    // (Polar confirms it for an organization that allows multiple subscriptions).
    app.stack.polar.setSubscriptionSettings({ allow_multiple_subscriptions: true })
    const untracked = await emulatorPolar(app).checkouts.create({
      products: [product],
      customer_id: first.customer.id,
    })
    const second = await app.stack.polar.completeCheckout(untracked.id)
    await app.stack.polar.idle()
    expect((await subscriptionRowOf(app, user.id))?.polar_subscription_id).toBe(
      first.subscription.id,
    )

    const answer = await deleteAccount(user)
    expect(answer.status).toBe(303)
    const statusOf = (id: string) => app.stack.polar.state.subscriptions.get(id)?.status
    expect(statusOf(first.subscription.id)).toBe('canceled')
    expect(statusOf(second.subscription.id)).toBe('canceled')
    expect(await userExists(user.id)).toBe(false)
  })

  it('a deletion that fails at any step logs a line naming that step', async () => {
    const error = vi.spyOn(logger, 'error')
    const user = await createSignedInUser(app)
    const attempt = (path: string, method: string) => {
      app.stack.supabase.addFault({ method, path, status: 500, count: 1 })
      return deleteAccount(user)
    }
    try {
      expect((await attempt(`/auth/v1/admin/users/${user.id}`, 'PUT')).status).not.toBe(303)
      expect((await attempt(`/auth/v1/admin/users/${user.id}`, 'DELETE')).status).not.toBe(303)
      const lines = error.mock.calls.map(([fields, message]) => [message, fields])
      expect(lines).toEqual([
        ['account deletion: deletion mark not set', expect.objectContaining({ user: user.id })],
        ['account deletion: deleteUser failed', expect.objectContaining({ user: user.id })],
      ])
    } finally {
      error.mockRestore()
      app.stack.supabase.clearFaults()
    }
    expect(await userExists(user.id)).toBe(true)
  })
})

describe('a re-check before anything irreversible', () => {
  it('deletion and an email change need the current password: a session alone, or a wrong password, changes nothing', async () => {
    const user = await createSignedInUser(app)
    for (const proof of [{}, { currentPassword: 'not-my-password' }] as Record<string, string>[]) {
      expect((await deleteAccount(user, proof)).status).toBe(400)
      expect((await changeEmail(user, `moved-${user.email}`, proof)).status).toBe(400)
    }
    await mailRequestsSettled()
    expect(await userExists(user.id)).toBe(true)
    const { data } = await admin.auth.admin.getUserById(user.id)
    expect(data.user?.new_email ?? null).toBeNull()
    const wrong = await deleteAccount(user, { currentPassword: 'not-my-password' })
    expect(wrong.data).toMatchObject({
      result: { error: { currentPassword: ['That is not your current password'] } },
    })
  })

  it('an account without a password (GitHub) proves itself with a code mailed to it', async () => {
    const user = await createGitHubUser(app)
    const wrong = await deleteAccount(user, { code: '123456' })
    expect(wrong.status).toBe(400)
    expect(await userExists(user.id)).toBe(true)
    const asked = await postAccount(user, { intent: 'send-code:delete-account' })
    expect(asked.data).toMatchObject({
      intent: 'delete-account',
      message: expect.stringContaining(user.email),
    })
    await mailRequestsSettled()
    const mail = await app.stack.supabase.inbox.latestFor(user.email)
    expect(mail!.subject).toBe('Your code to delete your account')
    // The key that named the action is gone once the mail is sent: a sign-in mail stays plain.
    const { data } = await admin.auth.admin.getUserById(user.id)
    expect(data.user?.user_metadata).not.toHaveProperty('code_for')
    const answer = await deleteAccount(user, { code: mail!.otp! })
    expect(answer.status).toBe(303)
    expect(await userExists(user.id)).toBe(false)
  })
})
