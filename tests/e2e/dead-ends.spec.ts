import type { Page } from '@playwright/test'

import { LINK_NOT_VALID } from '../../app/auth/auth-errors'
import { noticeByKey } from '../../app/lib/pages/notices'
import { mailSubject } from '../integration/mail-support'
import {
  askEmailChange,
  createUser,
  expect,
  fillSignIn,
  mailTo,
  newUser,
  openMailedLink,
  otherDevice,
  PHONE,
  planCard,
  signIn,
  signUp,
  stripeCheckoutUrl,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'

/** Journeys that used to end in a dead end, at phone width, forms with JavaScript off. */

/** Led to choose a password once an address is proven (docs/security.md): saved, the dashboard. */
async function choosePassword(page: Page, password: string) {
  await expect(page).toHaveURL(/\/reset-password\?notice=choose-password$/)
  await expect(page.getByRole('status').first()).toHaveText(noticeByKey('choose-password').text)
  await page.getByLabel('New password', { exact: true }).fill(password)
  await page.getByLabel('Repeat new password').fill(password)
  await page.getByRole('button', { name: 'Save new password' }).click()
  await expect(page).toHaveURL(/\/dashboard\?notice=password-updated$/)
}

test.describe('phone width, JavaScript off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  test('email change: a ✓ per opened link, one notice, the session kept; the sidebar follows', async ({
    page,
    browser,
  }) => {
    const user = await newUser('change-from')
    const next = uniqueEmail('change-to')
    await signIn(page, user.email)
    await askEmailChange(page, next)
    const pending = page.getByRole('status')
    await expect(pending).toHaveCount(1)

    const toOld = await waitForMail(user.email, 'email_change')
    expect(toOld.subject).toBe('Confirm the change of your Subscribely sign-in email')
    await openMailedLink(page, toOld.link!)
    await expect(page).toHaveURL(/\/dashboard\/settings\/account\?email=confirmed$/)
    await expect(pending).toHaveCount(1)
    await expect(pending).toContainText(`✓ ${user.email}: opened`)
    await expect(pending).toContainText(`○ ${next}: not opened yet`)
    await expect(page.getByText(`Current email: ${user.email}`)).toBeVisible()

    // The second link opened on another device: this browser still holds the old session.
    const other = await otherDevice(browser, { javaScriptEnabled: false })
    await openMailedLink(other, (await waitForMail(next, 'email_change')).link!)
    await other.context().close()
    await page.goto('/dashboard/settings/account')
    await expect(page.getByTestId('dashboard-user-name')).toHaveText(next)
    await expect(page.getByText(`Current email: ${next}`)).toBeVisible()
    expect((await mailTo(user.email, mailSubject('email_changed'))).text).toContain(
      `was changed from ${user.email} to ${next}`,
    )
    const toNew = await mailTo(next, mailSubject('email_changed'))
    expect(toNew.text).toContain(`${next} is now the sign-in email`)
  })

  test('a used or expired reset link offers "Send a new link"', async ({ page }) => {
    const user = await newUser('reset-dead-end')
    // A used link and a replaced one look alike: said before any button, with the way forward.
    await page.goto(
      `/auth/callback?token_hash=${'ab'.repeat(28)}&type=recovery&next=%2Freset-password`,
    )
    await expect(page).toHaveURL(/\/auth\/confirm\?/)
    await expect(page.getByRole('heading', { name: LINK_NOT_VALID })).toBeVisible()
    await expect(page.getByRole('main').getByRole('button')).toHaveCount(0)
    await page.getByRole('link', { name: 'Send a new link' }).click()
    await expect(page).toHaveURL(/\/forgot-password$/)
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await expect(page.getByRole('status')).toContainText(`If an account exists for ${user.email}`)
    const mail = await waitForMail(user.email, 'recovery')
    // This browser asked for it: the link goes straight on to choosing a password.
    await openMailedLink(page, mail.link!, /choose a password/i)
    await expect(page).toHaveURL(/\/reset-password$/)
  })

  test('signing in before confirming offers "Send the confirmation again"', async ({ page }) => {
    const { email } = await createUser(uniqueEmail('unconfirmed'), { confirmed: false })
    await page.goto('/sign-in')
    await fillSignIn(page, email)
    await expect(page.getByRole('alert')).toContainText('Please confirm your email address first')
    await page.getByRole('button', { name: 'Send the confirmation again' }).click()
    await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()
    await expect(page.getByRole('status').first()).toContainText(
      `If ${email} is waiting to be confirmed, a new email is on its way.`,
    )
    await openMailedLink(page, (await waitForMail(email, 'signup')).link!)
    // No sign-up of this browser made the account: its password is not provably hers.
    await choosePassword(page, 'chosen-password')
    await expect(page.getByText(`Signed in as ${email}.`)).toBeVisible()
  })

  test('the waiting page says so when the address is not confirmed yet', async ({ page }) => {
    await page.goto('/sign-up')
    await signUp(page, uniqueEmail('not-yet'))
    await page.getByRole('link', { name: 'I have confirmed my email' }).click()
    await expect(page.getByRole('status').first()).toContainText('Not confirmed yet')
  })
})

const PHONE_PASSWORD = 'chosen-on-the-phone'

for (const javaScriptEnabled of [true, false]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled })

    test('confirmed on another device: the phone chooses the password, the waiting tab moves on to the plan', async ({
      page,
      browser,
    }) => {
      test.setTimeout(90_000)
      const email = uniqueEmail(`other-device-${javaScriptEnabled ? 'js' : 'nojs'}`)
      await page.goto('/pricing')
      await planCard(page, 'Pro')
        .getByRole('link', { name: 'Get started with Pro: Pay by card' })
        .click()
      await expect(page).toHaveURL(/\/sign-up\?redirectTo=%2Fsubscribe%2Fpro%3Fprovider%3Dstripe$/)
      await expect(page.getByRole('main')).toContainText(
        "You're signing up for Pro, $29.00/month, paying by card.",
      )
      await signUp(page, email)

      // A phone cannot show the desktop's password is its own: it chooses one; the plan stays.
      const phone = await otherDevice(browser, { javaScriptEnabled: true, viewport: PHONE })
      await openMailedLink(phone, (await waitForMail(email, 'signup')).link!)
      await choosePassword(phone, PHONE_PASSWORD)
      await expect(phone.getByText(`Signed in as ${email}.`)).toBeVisible()
      await phone.context().close()

      // Without JavaScript the page does not ask by itself: the link asks once more.
      if (!javaScriptEnabled)
        await page.getByRole('link', { name: 'I have confirmed my email' }).click()
      await expect(page).toHaveURL(/\/sign-in\?notice=confirmed-sign-in/, { timeout: 15_000 })
      await expect(page.getByRole('status').first()).toHaveText(
        noticeByKey('confirmed-sign-in').text,
      )
      await expect(page.locator('form#sign-in').getByLabel('Email')).toHaveValue(email)
      await fillSignIn(page, email, PHONE_PASSWORD)
      await expect(page).toHaveURL(stripeCheckoutUrl)
    })
  })
}

for (const javaScriptEnabled of [true, false]) {
  test(`sign-in starts on the email field (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    const page = await otherDevice(browser, { javaScriptEnabled })
    await page.goto('/sign-in')
    await expect(page.locator('form#sign-in').getByLabel('Email')).toBeFocused()
    await page.context().close()
  })
}
