import type { Page } from '@playwright/test'

import { LINK_NOT_VALID, SIGN_IN_PAGE_ERRORS } from '../../app/auth/auth-errors'
import { noticeByKey } from '../../app/lib/pages/notices'
import { mailSubject } from '../integration/mail-support'
import {
  createUser,
  expect,
  fillSignIn,
  fillSignUp,
  mailTo,
  otherDevice,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'
import { E2E } from './ports'

/** Sign-in journeys in a real browser against the local stack and the production build. */

const AUTH_FAILED = SIGN_IN_PAGE_ERRORS.auth_failed
const WRONG_CREDENTIALS = 'That email and password do not match. Check them and try again.'

async function expectDashboard(page: Page, email: string) {
  await expect(page).toHaveURL(/\/dashboard$/)
  await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible()
  await expect(page.getByText(`Signed in as ${email}.`)).toBeVisible()
}

async function signOut(page: Page) {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: 'Sign out' })
    .click()
  await expect(page).toHaveURL(`${E2E.siteUrl}/?notice=signed-out`)
  await expect(page.getByRole('status')).toHaveText(noticeByKey('signed-out').text)
  await expect(
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign in' }),
  ).toBeVisible()
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled })

    test('sign up, confirm from the inbox, land on the dashboard with a notice once; the used link then fails', async ({
      page,
      browser,
    }) => {
      const email = uniqueEmail('signup')
      await page.goto('/sign-up')
      await fillSignUp(page, email)
      await expect(page).toHaveURL(/\/sign-up\/confirm\?/)
      await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()
      await expect(page.getByText(email)).toBeVisible()

      const mail = await waitForMail(email, 'signup')
      expect(new URL(mail.link!).pathname).toBe('/auth/callback')
      await page.goto(mail.link!)
      await expectDashboard(page, email)
      const confirmed = page
        .getByRole('status')
        .filter({ hasText: 'Your email address is confirmed' })
      await expect(confirmed).toBeVisible()
      await page.reload()
      await expectDashboard(page, email)
      await expect(confirmed).toHaveCount(0)

      // The same link again, in another browser: used, said at once, no button.
      const other = await otherDevice(browser)
      await other.goto(mail.link!)
      await expect(other).toHaveURL(/\/auth\/confirm\?/)
      await expect(other.getByRole('heading', { name: LINK_NOT_VALID })).toBeVisible()
      await expect(other.getByRole('main').getByRole('button')).toHaveCount(0)
      await expect(other.getByRole('link', { name: 'Send a new link' })).toHaveAttribute(
        'href',
        '/sign-up',
      )
      await other.context().close()
    })

    test('a protected page sends a visitor to sign in and back; a wrong password; sign out and in again', async ({
      page,
    }) => {
      const user = await createUser()
      await page.goto('/dashboard/settings/billing')
      await expect(page).toHaveURL(
        /\/sign-in\?redirectTo=%2Fdashboard%2Fsettings%2Fbilling&notice=sign-in-to-continue$/,
      )
      await fillSignIn(page, user.email, 'not-the-password')
      await expect(page.getByRole('alert')).toHaveText(WRONG_CREDENTIALS)
      await fillSignIn(page, user.email)
      await expect(page).toHaveURL(/\/dashboard\/settings\/billing$/)
      await expect(page.getByRole('heading', { level: 1, name: 'Billing' })).toBeVisible()
      await page.goto('/sign-in')
      await expectDashboard(page, user.email)

      await signOut(page)
      await page.goto('/dashboard')
      await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fdashboard&notice=sign-in-to-continue$/)
      await fillSignIn(page, user.email)
      await expectDashboard(page, user.email)
    })
  })
}

test.describe('the check-email page, with JavaScript off', () => {
  test.use({ javaScriptEnabled: false })

  test('the code from the mail confirms and signs in', async ({ page }) => {
    const email = uniqueEmail('code')
    await page.goto('/sign-up')
    await fillSignUp(page, email)
    await expect(page).toHaveURL(/\/sign-up\/confirm\?/)
    const mail = await waitForMail(email, 'signup')
    await page.getByRole('textbox', { name: 'Code from the email' }).fill('000000')
    await page.getByRole('button', { name: 'Confirm with the code' }).click()
    await expect(page.getByRole('alert')).toContainText('That code is not right')
    await page.getByRole('textbox', { name: 'Code from the email' }).fill(mail.otp!)
    await page.getByRole('button', { name: 'Confirm with the code' }).click()
    await expect(page).toHaveURL(/\/dashboard\?notice=email-confirmed$/)
    await expect(page.getByText(`Signed in as ${email}.`)).toBeVisible()
  })
})

test('the first click on "Create account" counts, even when a message appears under the field', async ({
  page,
}) => {
  await page.goto('/sign-up')
  await page.waitForLoadState('networkidle')
  // The email is left empty; the password is too short and still has the focus.
  await page.getByLabel('Password', { exact: true }).fill('short')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByRole('textbox', { name: 'Email' })).toHaveAccessibleDescription(
    'Enter your email address',
  )
  await expect(page.getByLabel('Password', { exact: true })).toHaveAccessibleDescription(
    /Use at least \d+ characters/,
  )
})

test('OAuth cancelled on the consent page comes back with a human message', async ({ page }) => {
  await page.goto('/sign-in')
  await page.getByRole('button', { name: 'Continue with GitHub' }).click()
  await page.getByRole('button', { name: 'Cancel' }).click()
  await expect(page).toHaveURL(/\/sign-in\?error=auth_failed$/)
  await expect(page.getByRole('alert')).toHaveText(AUTH_FAILED)
  await page.goto('/sign-in?error=<script>')
  await expect(page.getByRole('alert')).toHaveCount(0)
})

test('forgot password: mail, choose a new password, sign in with it', async ({ page }) => {
  const user = await createUser()
  const newPassword = 'a-brand-new-passphrase'
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Forgot your password?' }).click()
  await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible()
  await page.getByRole('textbox', { name: 'Email' }).fill(user.email)
  await page.getByRole('button', { name: 'Send reset link' }).click()
  await expect(page.getByRole('status')).toContainText(`If an account exists for ${user.email}`)

  const mail = await waitForMail(user.email, 'recovery')
  await page.goto(mail.link!)
  await expect(page).toHaveURL(/\/reset-password$/)
  await page.getByLabel('New password', { exact: true }).fill(newPassword)
  await page.getByLabel('Repeat new password').fill(newPassword)
  await page.getByRole('button', { name: 'Save new password' }).click()
  await expect(page).toHaveURL(/\/dashboard\?notice=password-updated$/)
  await expect(page.getByRole('status')).toHaveText(noticeByKey('password-updated').text)
  // A new password from a reset link is a password change too: the notice arrives.
  const changed = await mailTo(user.email, mailSubject('password_changed'))
  expect(changed.text).toContain(`Reset your password: ${E2E.siteUrl}/forgot-password`)

  await signOut(page)
  await page.goto('/sign-in')
  await fillSignIn(page, user.email, user.password)
  await expect(page.getByRole('alert')).toHaveText(WRONG_CREDENTIALS)
  await expect(page).toHaveURL(/\/sign-in$/)
  await page.goto('/dashboard')
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=/)
  await fillSignIn(page, user.email, newPassword)
  await expectDashboard(page, user.email)
})
