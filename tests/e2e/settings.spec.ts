import type { Page } from '@playwright/test'

import { mailSubject } from '../integration/mail-support'
import {
  expect,
  fillSignIn,
  mailTo,
  otherDevice,
  PASSWORD,
  signedInUser,
  signIn,
  test,
} from './fixtures'

/** The dashboard's settings pages, as a subscriber uses them. */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
)

let user: { id: string; email: string; password: string }

test.beforeEach(async ({ page }) => {
  user = await signedInUser(page, 'settings')
})

const dashboardNav = (page: Page) => page.getByRole('navigation', { name: 'Dashboard' })

test('navigates between the overview and every settings page', async ({ page }) => {
  await page.goto('/dashboard/settings')
  await expect(page).toHaveURL(/\/dashboard\/settings\/general$/)
  const pages = [
    ['Overview', 'Dashboard'],
    ['Account', 'Account'],
    ['Billing', 'Billing'],
    ['Notifications', 'Notifications'],
    ['General', 'General'],
  ] as const
  for (const [link, heading] of pages) {
    await dashboardNav(page).getByRole('link', { name: link, exact: true }).click()
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible()
    await expect(dashboardNav(page).getByRole('link', { name: link, exact: true })).toHaveAttribute(
      'aria-current',
      'page',
    )
  }
  await expect(page.getByTestId('dashboard-user-name')).toHaveText(user.email)
})

test('on a phone the navigation fits and the page does not scroll sideways', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 })
  await page.goto('/dashboard/settings/account')
  await dashboardNav(page).getByText('Dashboard menu').click()
  const tabs = dashboardNav(page).getByRole('link')
  await expect(tabs).toHaveCount(5)
  for (const box of await Promise.all((await tabs.all()).map((tab) => tab.boundingBox())))
    expect([box!.x >= 0, box!.x + box!.width <= 375]).toEqual([true, true])
  await dashboardNav(page).getByRole('link', { name: 'Notifications' }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible()
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  )
  expect(overflow).toBeLessThanOrEqual(0)
  // Each checkbox is whole and level with its label, at phone and desktop width.
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 740 })
    for (const name of ['Product updates', 'Billing emails', 'Security alerts']) {
      const box = (await page.getByRole('checkbox', { name }).boundingBox())!
      // The middle of the label's line (its block's top plus half its line height).
      const line = await page
        .getByText(name, { exact: true })
        .evaluate(
          (label) =>
            label.parentElement!.getBoundingClientRect().top +
            parseFloat(getComputedStyle(label).lineHeight) / 2,
        )
      expect(box.width, `${name} at ${width}`).toBe(16)
      expect(
        Math.abs(box.y + box.height / 2 - line),
        `${name} at ${width}: ${box.y} ${line}`,
      ).toBeLessThanOrEqual(1)
    }
  }
})

for (const javaScriptEnabled of [true, false]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled })

    test('the name, the avatar and the notification preferences are saved and kept', async ({
      page,
    }) => {
      await page.goto('/dashboard/settings/general')
      const name = page.getByRole('textbox', { name: 'Display name' })
      // Without JavaScript the browser's own check refuses an empty name before any post.
      if (javaScriptEnabled) {
        await name.fill('')
        await page.getByRole('button', { name: 'Save name' }).click()
        await expect(name).toHaveAttribute('aria-invalid', 'true')
        await expect(page.getByText('Enter the name to show')).toBeVisible()
      }
      await name.fill('Grace Hopper')
      await page.getByRole('button', { name: 'Save name' }).click()
      await expect(
        page.getByRole('status').filter({ hasText: 'Your name has been saved.' }),
      ).toBeVisible()
      await expect(page.getByTestId('dashboard-user-name')).toHaveText('Grace Hopper')

      const input = page.getByLabel('New avatar')
      const upload = page.getByRole('button', { name: 'Upload avatar' })
      await input.setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('hi'),
      })
      await upload.click()
      await expect(page.getByText('Upload a PNG, JPEG, WebP or GIF image')).toBeVisible()
      await expect(input).toHaveAttribute('aria-invalid', 'true')
      await input.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG })
      await upload.click()
      await expect(
        page.getByRole('status').filter({ hasText: 'Your avatar has been updated.' }),
      ).toBeVisible()
      const avatar = dashboardNav(page)
        .locator('..')
        .getByRole('img', { name: 'Avatar of Grace Hopper' })
      await expect
        .poll(() => avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBe(1)
      await page.getByRole('button', { name: 'Remove avatar' }).click()
      await expect(page.getByText('You have no avatar yet.')).toBeVisible()
      await page.reload()
      await expect(name).toHaveValue('Grace Hopper')

      await page.goto('/dashboard/settings/notifications')
      const box = (label: string) => page.getByRole('checkbox', { name: label })
      // Product updates are opt-in: off until ticked; billing and security mails are on.
      await expect(box('Product updates')).not.toBeChecked()
      await expect(box('Billing emails')).toBeChecked()
      await expect(box('Security alerts')).toBeChecked()
      await box('Product updates').check()
      await box('Security alerts').uncheck()
      await page.getByRole('button', { name: 'Save preferences' }).click()
      await expect(page.getByRole('status')).toHaveText('Your preferences have been saved.')
      await page.reload()
      for (const [label, checked] of [
        ['Product updates', true],
        ['Billing emails', true],
        ['Security alerts', false],
      ] as const)
        await expect(box(label)).toBeChecked({ checked })
    })

    test('sign out of all sessions asks first; another device is then refused at once', async ({
      page,
      browser,
    }) => {
      const laptop = await otherDevice(browser)
      await signIn(laptop, user.email)
      await page.goto('/dashboard/settings/account')
      await expect(page.getByRole('button', { name: 'Yes, sign out everywhere' })).toBeHidden()
      await page.getByText('Sign out of all sessions').click()
      await expect(page.getByText('this one included')).toBeVisible()
      await expect(page).toHaveURL(/\/dashboard\/settings\/account$/)
      await page.getByRole('button', { name: 'Yes, sign out everywhere' }).click()
      await expect(page).toHaveURL(/\/sign-in\?notice=signed-out-everywhere$/)
      await expect(page.getByRole('status')).toContainText('signed out on every device')
      await mailTo(user.email, mailSubject('signed_out_everywhere'))
      // Its very next request is refused, long before the access token would expire, and says why.
      await laptop.goto('/dashboard/settings/billing')
      await expect(laptop).toHaveURL(/\/sign-in\?redirectTo=/)
      await expect(laptop.getByRole('status').first()).toContainText(
        'your session was ended from another device',
      )
      await laptop.context().close()
    })
  })
}

test('changes the password and signs in with the new one', async ({ page }) => {
  await page.goto('/dashboard/settings/account')
  const form = page.locator('form#change-password')
  await form.getByLabel('Current password').fill('wrong-password')
  await form.getByLabel('New password', { exact: true }).fill('brand-new-password-7')
  await form.getByLabel('Repeat new password').fill('brand-new-password-7')
  await form.getByRole('button', { name: 'Change password' }).click()
  await expect(form.getByText('That is not your current password')).toBeVisible()

  await form.getByLabel('Current password').fill(PASSWORD)
  await form.getByLabel('New password', { exact: true }).fill('brand-new-password-7')
  await form.getByLabel('Repeat new password').fill('brand-new-password-7')
  await form.getByRole('button', { name: 'Change password' }).click()
  await expect(form.getByRole('status')).toHaveText('Your password has been changed.')
  await expect(form.getByLabel('Current password')).toHaveValue('')

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: 'Sign out' })
    .click()
  await expect(page).toHaveURL(/\/\?notice=signed-out$/)
  await signIn(page, user.email, 'brand-new-password-7')
})

test('deletes the account after confirmation', async ({ page }) => {
  await page.goto('/dashboard/settings/account')
  const form = page.locator('form#delete-account')
  await form.getByRole('button', { name: 'Delete account' }).click()
  await expect(form.getByText('Type DELETE to confirm').last()).toBeVisible()
  await form.getByRole('textbox', { name: 'Type DELETE to confirm' }).fill('DELETE')
  // A live session alone deletes nothing: the current password is asked for.
  await form.getByLabel('Current password').fill('not-my-password')
  await form.getByRole('button', { name: 'Delete account' }).click()
  await expect(form.getByText('That is not your current password')).toBeVisible()
  await form.getByRole('textbox', { name: 'Type DELETE to confirm' }).fill('DELETE')
  await form.getByLabel('Current password').fill(PASSWORD)
  await form.getByRole('button', { name: 'Delete account' }).click()
  await expect(page.getByRole('heading', { name: 'Your account has been deleted' })).toBeVisible()
  await page.goto('/dashboard')
  await expect(page).toHaveURL(/\/sign-in/)
  await fillSignIn(page, user.email)
  await expect(page.getByRole('alert')).toContainText('do not match')
})
