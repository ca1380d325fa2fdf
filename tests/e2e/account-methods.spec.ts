import type { Page } from '@playwright/test'

import {
  axeFindings,
  axeLightAndDark,
  deleteAfterTest,
  expect,
  mailTo,
  PHONE,
  signIn,
  test,
  uniqueEmail,
} from './fixtures'
import { E2E } from './ports'

/** A GitHub account's sign-in methods: a first password without a current one, codes by mail. */

/** Signs in with GitHub through the local consent page, creating the account. */
async function signInWithGitHub(page: Page) {
  const email = uniqueEmail('github')
  deleteAfterTest(email)
  await page.goto('/sign-in')
  await page.getByRole('button', { name: 'Continue with GitHub' }).click()
  await expect(page).toHaveURL(new RegExp(`^${E2E.supabaseUrl}/auth/v1/_consent`))
  await expect(page.getByRole('heading', { name: 'Sign in with GitHub' })).toBeVisible()
  await expect(page.getByRole('note')).toContainText('Local stand-in, not GitHub.')
  await page.getByRole('textbox', { name: 'Email' }).fill(email)
  await page.getByRole('button', { name: 'Authorize' }).click()
  await expect(page).toHaveURL(/\/dashboard$/)
  await expect(page.getByText(`Signed in as ${email}.`)).toBeVisible()
  return email
}

const methods = (page: Page) => page.getByRole('region', { name: 'Sign-in methods' })

async function setPassword(page: Page, password: string) {
  const form = page.locator('form#set-password')
  await expect(form.getByLabel('Current password')).toHaveCount(0)
  await form.getByLabel('New password', { exact: true }).fill(password)
  await form.getByLabel('Repeat new password').fill(password)
  await form.getByRole('button', { name: 'Set a password' }).click()
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled })

    test('a GitHub account sets a first password, then signs in with it', async ({ page }) => {
      const email = await signInWithGitHub(page)
      await page.goto('/dashboard/settings/account')
      await expect(methods(page).getByRole('listitem').filter({ hasText: 'GitHub' })).toContainText(
        'Connected',
      )
      await expect(
        methods(page).getByRole('listitem').filter({ hasText: 'Email and password' }),
      ).toContainText('No password yet')
      await expect(page.getByRole('heading', { name: 'Set a password' })).toBeVisible()
      if (javaScriptEnabled) expect(await axeFindings(page)).toEqual([])

      await setPassword(page, 'my-first-password-1')
      await expect(
        page.getByRole('status').filter({ hasText: 'Your password is set' }),
      ).toBeVisible()
      await expect(
        page.locator('form#change-password').getByLabel('Current password'),
      ).toBeVisible()
      await expect(
        methods(page).getByRole('listitem').filter({ hasText: 'Email and password' }),
      ).toContainText(email)

      await page.context().clearCookies()
      await signIn(page, email, 'my-first-password-1')
    })
  })
}

// Confirming with an emailed code: its button before the submit, digits, a mail naming it.
const CODE_FORMS = [
  {
    id: 'change-email',
    submit: 'Change email',
    field: 'New email',
    subject: 'Your code to change your sign-in email',
    says: 'Your code to change the sign-in email of the Subscribely account',
    done: /^\/dashboard\/settings\/account$/,
  },
  {
    id: 'delete-account',
    submit: 'Delete account',
    field: 'Type DELETE to confirm',
    subject: 'Your code to delete your account',
    says: 'Your code to delete the Subscribely account',
    done: /^\/account-deleted$/,
  },
] as const

test.describe('phone width, JavaScript off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  for (const { id, submit, field, subject, says, done } of CODE_FORMS) {
    test(`a GitHub account confirms ${id} with a code whose mail names it`, async ({ page }) => {
      const email = await signInWithGitHub(page)
      const value = id === 'change-email' ? uniqueEmail('github-to') : 'DELETE'
      await page.goto('/dashboard/settings/account')
      const form = page.locator(`form#${id}`)
      const code = form.getByRole('textbox', { name: 'Code from the email' })
      await expect(code).toHaveAttribute('inputmode', 'numeric')
      const buttons = await form.getByRole('button').allTextContents()
      expect(buttons.map((text) => text.trim())).toEqual(['Email me a code', submit])
      await form.getByRole('textbox', { name: field }).fill(value)
      await form.getByRole('button', { name: submit }).click()
      await expect(form).toContainText('Enter the code from the email')
      await expect(form).not.toContainText(/password/i)
      await form.getByRole('button', { name: 'Email me a code' }).click()
      await expect(page.getByRole('status')).toContainText('We emailed a 6-digit code')
      const mail = await mailTo(email, subject)
      expect(mail.text).toContain(`${says} ${email}: ${mail.otp}`)
      expect(mail.text).not.toMatch(/sign in to/i)
      await form.getByRole('textbox', { name: field }).fill(value)
      await code.fill(mail.otp!)
      await form.getByRole('button', { name: submit }).click()
      await expect(page).toHaveURL((url) => done.test(url.pathname))
      if (id === 'change-email')
        await expect(page.getByRole('status')).toContainText(`We sent one to ${value}`)
    })
  }
})

test('asking for a code passes axe, light and dark', async ({ page }) => {
  await signInWithGitHub(page)
  await page.goto('/dashboard/settings/account')
  await page.locator('form#delete-account').getByRole('button', { name: 'Email me a code' }).click()
  await expect(page.getByRole('status')).toContainText('We emailed a 6-digit code')
  expect(await axeLightAndDark(page)).toEqual([])
})
