import type { Page } from '@playwright/test'

import { noticeByKey } from '../../app/lib/pages/notices'
import { daysFromNow, seedPayments, seedSubscription } from './billing-seed'
import { axeFindings, expect, newUser, signIn, test, waitForMail } from './fixtures'

/**
 * An axe scan of every page, in the states a visitor or subscriber sees them: empty and
 * filled, with form errors and messages shown, signed out and signed in. Serious and
 * critical violations fail the test; the message lists each rule, its targets and its help.
 */

/** Scans the page as it is now; every serious or critical violation fails (softly, to list all). */
async function scan(page: Page, what: string) {
  expect.soft(await axeFindings(page), `${what} (${page.url()})`).toEqual([])
}

async function visit(page: Page, path: string, what = path) {
  await page.goto(path)
  await scan(page, what)
}

test.describe('public pages', () => {
  test('landing, pricing, contact, auth pages, success, 404 and account-deleted', async ({
    page,
  }) => {
    // Two dozen pages and states, each scanned: more than one ordinary test's time.
    test.slow()
    await visit(page, '/')
    await visit(page, '/pricing')
    await visit(page, '/pricing?canceled=true')
    await visit(page, '/contact')
    await visit(page, '/sign-in')
    await visit(page, '/sign-in?error=auth_failed')
    await visit(page, '/sign-in/confirm?email=ada%40example.com')
    await visit(page, '/auth/confirm?token_hash=0123abcd&type=magiclink', 'link confirmation')
    await visit(page, '/sign-up')
    await visit(page, '/sign-up/confirm?email=ada%40example.com')
    await visit(page, '/forgot-password')
    await visit(page, '/success', '/success without an id (failed state)')
    const missing = await page.goto('/no-such-page')
    expect(missing?.status()).toBe(404)
    await scan(page, 'the 404 page')
    await visit(page, '/account-deleted')
  })

  test('forms with their errors and messages shown', async ({ page }) => {
    const user = await newUser('a11y-forms')

    await page.goto('/sign-in')
    const signInForm = page.locator('form#sign-in')
    await signInForm.getByLabel('Email').fill(user.email)
    await signInForm.getByLabel('Password').fill('not-the-password')
    await signInForm.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.getByRole('alert')).toBeVisible()
    await scan(page, 'sign-in with a wrong password')

    await page.goto('/sign-up')
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email)
    await page.getByLabel('Password', { exact: true }).fill('short')
    await page.getByRole('button', { name: 'Create account' }).click()
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute(
      'aria-invalid',
      'true',
    )
    await scan(page, 'sign-up with a password that is too short')

    await page.goto('/forgot-password')
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await expect(page.getByRole('status')).toBeVisible()
    await scan(page, 'forgot-password after sending')

    await page.goto('/contact')
    await expect(page.locator('form#contact')).toHaveAttribute('novalidate', '')
    await page.getByRole('textbox', { name: 'First name' }).fill('A')
    await page.getByRole('textbox', { name: 'Email' }).fill('not-an-email')
    await page.getByRole('button', { name: 'Send message' }).click()
    await expect(page.getByRole('textbox', { name: 'Email' })).toHaveAttribute(
      'aria-invalid',
      'true',
    )
    await scan(page, 'contact with bad fields')
  })

  // axe runs inside the page, so the browser keeps JavaScript; the app's own scripts are
  // blocked instead, so the page never hydrates and its forms post the old way.
  test("the server-rendered form errors, without the app's JavaScript", async ({ page }) => {
    await page.route(/\.js(\?.*)?$/, (route) => route.abort())
    await page.goto('/contact')
    await page.getByRole('textbox', { name: 'First name' }).fill('Ada')
    await page.getByRole('textbox', { name: 'Last name' }).fill('Lovelace')
    await page.getByRole('textbox', { name: 'Email' }).fill('ada@example.com')
    await page.getByRole('textbox', { name: 'Message' }).fill('Too short')
    await page.getByRole('button', { name: 'Send message' }).click()
    await expect(page.locator('[aria-invalid="true"]').first()).toBeVisible()
    await scan(page, 'contact with a bad field, no JavaScript')

    await page.goto('/sign-in')
    const signInForm = page.locator('form#sign-in')
    await signInForm.getByLabel('Email').fill('nobody@example.com')
    await signInForm.getByLabel('Password').fill('not-the-password')
    await signInForm.getByRole('button', { name: 'Sign in' }).click()
    await expect(page.getByRole('alert')).toBeVisible()
    await scan(page, 'sign-in with a wrong password, no JavaScript')
  })
})

test.describe('signed-in pages', () => {
  test('dashboard and settings without a subscription', async ({ page }) => {
    const user = await newUser('a11y-empty')
    await signIn(page, user.email)
    await visit(page, '/dashboard')
    await visit(page, '/dashboard/settings/general')
    await visit(page, '/dashboard/settings/account')
    await visit(page, '/dashboard/settings/billing', 'billing without a subscription')
    await visit(page, '/dashboard/settings/notifications')
    await visit(page, '/pricing', 'pricing, signed in')
    await visit(
      page,
      '/reset-password',
      'reset-password without a recovery link (sent to ask for one)',
    )
  })

  test('the phone layout of the dashboard', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 })
    const user = await newUser('a11y-phone')
    await signIn(page, user.email)
    await visit(page, '/dashboard', 'dashboard at phone width')
    await visit(page, '/dashboard/settings/billing', 'billing at phone width')
  })

  test('dashboard and billing with a subscription, payments and pages', async ({ page }) => {
    const user = await newUser('a11y-subscribed')
    await seedSubscription(user.id, {
      status: 'trialing',
      trial_start: daysFromNow(-3),
      trial_end: daysFromNow(11),
      cancel_at_period_end: true,
      cancel_at: daysFromNow(11),
    })
    await seedPayments(
      user.id,
      Array.from({ length: 12 }, (_, index) => ({
        amount: index === 0 ? -2900 : 2900,
        currency: index % 2 ? 'eur' : 'usd',
        status: index === 0 ? 'refunded' : 'paid',
        description: 'Pro payment',
        invoice_url: index % 3 ? `https://example.com/invoices/${index}` : null,
        created_at: daysFromNow(-index * 30),
      })),
    )
    await signIn(page, user.email)
    await visit(page, '/dashboard', 'dashboard with a trial')
    await visit(page, '/dashboard/settings/billing', 'billing with a subscription and payments')
    await visit(page, '/dashboard/settings/billing?page=2', 'billing, second page of payments')
    await visit(
      page,
      '/dashboard/settings/billing?notice=already-subscribed',
      'billing with the already-subscribed notice',
    )
    await visit(page, '/pricing', 'pricing, subscribed')

    // The seeded customer is unknown to the emulator: "Manage billing" shows its error.
    await page.goto('/dashboard/settings/billing')
    await page.getByRole('button', { name: 'Manage billing' }).click()
    await expect(page.getByText(noticeByKey('portal-failed').text)).toBeVisible()
    await scan(page, 'billing with the "Manage billing" error')
  })

  test('settings forms with their errors and messages shown', async ({ page }) => {
    const user = await newUser('a11y-settings-forms')
    await signIn(page, user.email)

    await page.goto('/dashboard/settings/general')
    const name = page.getByRole('textbox', { name: 'Display name' })
    await expect(name.locator('xpath=ancestor::form')).toHaveAttribute('novalidate', '')
    await name.fill('')
    await page.getByRole('button', { name: 'Save name' }).click()
    await expect(name).toHaveAttribute('aria-invalid', 'true')
    await scan(page, 'general with an empty name')
    await name.fill('Grace Hopper')
    await page.getByRole('button', { name: 'Save name' }).click()
    await expect(
      page.getByRole('status').filter({ hasText: 'Your name has been saved.' }),
    ).toBeVisible()
    await scan(page, 'general after saving')

    await page.goto('/dashboard/settings/account')
    const changePassword = page.getByRole('button', { name: 'Change password' })
    await expect(changePassword.locator('xpath=ancestor::form')).toHaveAttribute('novalidate', '')
    await changePassword.click()
    await expect(page.locator('[aria-invalid="true"]').first()).toBeVisible()
    await scan(page, 'account with password errors')

    await page.goto('/dashboard/settings/notifications')
    await page.getByRole('button', { name: 'Save preferences' }).click()
    await expect(page.getByRole('status')).toBeVisible()
    await scan(page, 'notifications after saving')
  })

  test('reset-password reached through the recovery email, with an error shown', async ({
    page,
  }) => {
    const user = await newUser('a11y-recovery')
    await page.goto('/forgot-password')
    await page.getByRole('textbox', { name: 'Email' }).fill(user.email)
    await page.getByRole('button', { name: 'Send reset link' }).click()
    await expect(page.getByRole('status')).toBeVisible()
    const mail = await waitForMail(user.email, 'recovery')
    await page.goto(mail.link!)
    await expect(page).toHaveURL(/\/reset-password$/)
    await scan(page, 'reset-password from the recovery link')
    await page.getByLabel('New password', { exact: true }).fill('a-brand-new-passphrase')
    await page.getByLabel('Repeat new password').fill('something-else-entirely')
    await page.getByRole('button', { name: 'Save new password' }).click()
    await expect(page.locator('[aria-invalid="true"]').first()).toBeVisible()
    await scan(page, 'reset-password with mismatched passwords')
  })
})

test.describe('dark mode (the system setting)', () => {
  test.use({ colorScheme: 'dark' })

  test('public and signed-in pages follow it and stay readable', async ({ page }, testInfo) => {
    test.slow()
    await visit(page, '/', 'landing, dark')
    // Really dark: the page's background follows the system setting.
    const background = await page.evaluate(
      () => getComputedStyle(document.documentElement).backgroundColor,
    )
    expect(background).toBe('rgb(15, 23, 42)')
    await testInfo.attach('landing, dark', {
      body: await page.screenshot({ fullPage: true }),
      contentType: 'image/png',
    })
    await visit(page, '/pricing', 'pricing, dark')
    await visit(page, '/contact', 'contact, dark')
    await visit(page, '/sign-in?error=auth_failed', 'sign-in with an error, dark')
    await visit(page, '/sign-up?redirectTo=%2Fsubscribe%2Fpro', 'sign-up for a plan, dark')
    await visit(page, '/sign-up/confirm?email=ada%40example.com', 'check your email, dark')

    const user = await newUser('a11y-dark')
    await seedSubscription(user.id, { status: 'past_due' })
    await seedPayments(user.id, [
      {
        amount: 2900,
        currency: 'usd',
        status: 'paid',
        description: 'Pro payment',
        invoice_url: null,
        created_at: daysFromNow(-30),
      },
    ])
    await signIn(page, user.email)
    await visit(page, '/dashboard', 'dashboard, past due, dark')
    await visit(page, '/dashboard/settings/billing', 'billing, dark')
    await testInfo.attach('billing, dark', {
      body: await page.screenshot({ fullPage: true }),
      contentType: 'image/png',
    })
    await visit(page, '/dashboard/settings/account', 'account settings, dark')
    await visit(page, '/dashboard/settings/notifications', 'notifications, dark')
  })
})
