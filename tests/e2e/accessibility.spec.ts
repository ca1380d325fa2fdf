import type { Page } from '@playwright/test'

import { noticeByKey } from '../../app/lib/pages/notices'
import { daysFromNow, seedPayments, seedSubscription } from './billing-seed'
import {
  askEmailChange,
  axeLightAndDark,
  expect,
  newUser,
  signIn,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'

/** Axe on every page, light and dark, in the states people see it; serious or critical fails. */

test.describe.configure({ timeout: 240_000 })

/** Scans the page as it is now; every serious or critical violation fails (softly, to list all). */
async function scan(page: Page, what: string) {
  expect.soft(await axeLightAndDark(page), `${what} (${page.url()})`).toEqual([])
}

async function visit(page: Page, path: string, what = path) {
  await page.goto(path)
  await scan(page, what)
}

test.describe('public pages', () => {
  test('landing, pricing, contact, auth pages, success, 404 and account-deleted', async ({
    page,
  }) => {
    for (const path of [
      '/',
      '/pricing',
      '/pricing?canceled=true',
      '/contact',
      '/sign-in',
      '/sign-in?error=auth_failed',
      '/sign-in?redirectTo=%2Fdashboard&notice=sign-in-to-continue',
      `/sign-in/confirm?${new URLSearchParams({ email: 'ada@example.com', wait: '40' })}`,
      '/auth/confirm?token_hash=0123abcd&type=magiclink',
      '/sign-up',
      '/sign-up?redirectTo=%2Fsubscribe%2Fpro',
      '/sign-up?redirectTo=%2Fsubscribe%2Fpro%3Fprovider%3Dpolar',
      '/sign-up/confirm?email=ada%40example.com',
      '/forgot-password',
      '/success',
      '/success?session_id=cs_test_nobody_knows',
      '/account-deleted',
      '/%E0%A4%A',
    ])
      await visit(page, path)
    const missing = await page.goto('/no-such-page')
    expect(missing?.status()).toBe(404)
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible()
    await scan(page, 'the 404 page')
    // The system's dark setting (axeLightAndDark leaves it on) darkens the page itself.
    await page.goto('/')
    const background = () => getComputedStyle(document.documentElement).backgroundColor
    expect(await page.evaluate(background)).toBe('rgb(15, 23, 42)')
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

  // axe needs the page's JavaScript: the app's scripts are blocked instead, so forms post.
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
    for (const path of [
      '/dashboard',
      '/dashboard/settings/general',
      '/dashboard/settings/account',
      '/dashboard/settings/billing',
      '/dashboard/settings/notifications',
      '/pricing',
      '/contact',
      // Without a recovery link: sent to ask for one.
      '/reset-password',
    ])
      await visit(page, path, `${path}, signed in without a subscription`)
  })

  test('the phone layout of the dashboard', async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 })
    const user = await newUser('a11y-phone')
    await signIn(page, user.email)
    await visit(page, '/dashboard', 'dashboard at phone width')
    await visit(page, '/dashboard/settings/billing', 'billing at phone width')
    const headerMenu = page.locator('header summary')
    await headerMenu.click()
    await scan(page, 'phone header menu open')
    await headerMenu.click()
    await page.getByRole('navigation', { name: 'Dashboard' }).getByText('Dashboard menu').click()
    await scan(page, 'phone dashboard menu open')
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
        description: index % 4 ? 'Pro payment' : null,
        invoice_url: index % 3 ? `https://example.com/invoices/${index}` : null,
        created_at: daysFromNow(-index * 30),
      })),
    )
    await signIn(page, user.email)
    for (const path of [
      '/dashboard',
      '/dashboard/settings/billing',
      '/dashboard/settings/billing?page=2',
      '/dashboard/settings/billing?notice=already-subscribed',
      '/dashboard/settings/billing?cancel',
      '/dashboard/settings/account',
      '/pricing',
    ])
      await visit(page, path, `${path}, with a trial, payments and pages`)

    await page.goto('/dashboard/settings/billing')
    await page.getByRole('button', { name: 'Manage billing' }).click()
    await expect(page.getByText(noticeByKey('portal-failed').text)).toBeVisible()
    await scan(page, 'billing with the "Manage billing" error')
  })

  test('past due: the notice, its actions and the Pay link, and a new card saved', async ({
    page,
  }) => {
    const user = await newUser('a11y-past-due')
    await seedSubscription(user.id, { status: 'past_due', payment_failed_at: daysFromNow(-1) })
    await seedPayments(user.id, [
      {
        amount: 2900,
        status: 'failed',
        description: 'Pro payment',
        invoice_url: 'https://invoice.stripe.com/i/seeded',
        created_at: daysFromNow(-1),
      },
    ])
    await signIn(page, user.email)
    for (const path of ['/dashboard/settings/billing', '/dashboard', '/pricing']) {
      await visit(page, path, `${path}, past due`)
      await expect(page.getByRole('alert')).toContainText('did not go through')
    }
    await page.goto('/dashboard/settings/billing')
    await expect(page.getByRole('link', { name: 'Pay', exact: true })).toHaveCount(1)
    await visit(page, '/dashboard/settings/billing?card=saved', 'billing, a new card saved')
    await expect(page.getByRole('alert')).toContainText('Your new card is saved')
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

    await askEmailChange(page, uniqueEmail('a11y-to'))
    await scan(page, 'account with an email change pending')

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
