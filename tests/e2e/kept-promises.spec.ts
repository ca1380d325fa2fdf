import type { Locator, Page } from '@playwright/test'

import {
  AUTH_FAILURE_MESSAGES,
  LINK_NOT_VALID,
  mailMinuteMessage,
} from '../../app/auth/auth-errors'
import { catalogPlan } from '../../app/billing/plans.test-support'
import { UNKNOWN_FORM } from '../../app/lib/forms/form-reply'
import { noticeByKey } from '../../app/lib/pages/notices'
import { createPolarCustomer, seedSubscription } from './billing-seed'
import {
  askForSignInLink,
  expect,
  fillSignIn,
  fillSignUp,
  newUser,
  otherDevice,
  PHONE,
  signIn,
  signUp,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'

/** What the product promises, kept; at phone width, JavaScript off. */

const SIGNED_OUT = /\/sign-in\?redirectTo=.*&notice=sign-in-to-continue$/
const signInNotice = (page: Page) => page.getByText(noticeByKey('sign-in-to-continue').text)
const notFound = (page: Page) =>
  page.getByRole('heading', { level: 1, name: "We couldn't find that checkout" })

/** Pages an address alone reaches: where each lands, what it says, and what it never says. */
const WORDS: {
  path: string
  says: (page: Page) => Locator
  lands?: RegExp
  never?: string | RegExp
  status?: number
}[] = [
  {
    path: '/auth/confirm?token_hash=tampered0123&type=magiclink',
    says: (page) => page.getByRole('heading', { name: LINK_NOT_VALID }),
  },
  { path: '/success?session_id=cs_test_nobody_knows', says: notFound, never: 'not paid' },
  {
    path: '/success',
    says: (page) => page.getByRole('link', { name: 'Back to pricing' }),
    never: 'You have not been charged',
  },
  { path: '/success', says: notFound },
  {
    path: '/dashboard/settings/billing',
    lands: SIGNED_OUT,
    says: signInNotice,
    never: 'Your session has ended',
  },
  {
    path: '/api/checkout?plan=pro',
    lands: SIGNED_OUT,
    says: signInNotice,
    never: 'Your session has ended',
  },
  // A Polar checkout link opened signed out (a shared link): sign in first, then the plans.
  {
    path: `/api/checkout?products=${catalogPlan('pro').polar.productId}`,
    lands: /\/sign-in\?redirectTo=%2Fpricing&notice=sign-in-to-continue$/,
    says: signInNotice,
  },
  {
    path: '/subscribe/pro',
    lands: /\/sign-in\?redirectTo=%2Fsubscribe%2Fpro&notice=sign-in-to-continue$/,
    says: signInNotice,
  },
  {
    path: '/',
    says: (page) => page.locator('#main').getByRole('link', { name: 'Create an account' }),
    never: /free account/i,
  },
  {
    path: '/%E0%A4%A',
    status: 404,
    says: (page) => page.getByRole('heading', { level: 1, name: 'Page not found' }),
  },
  { path: '/%E0%A4%A', says: (page) => page.getByRole('link', { name: 'Subscribely' }) },
]

const MINUTE_NOTICE = new RegExp(
  mailMinuteMessage(40)
    .replace('40', '\\d+')
    .replace(/[.;]/g, (c) => `\\${c}`),
)

test.describe('phone width, JavaScript off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  test('within the minute of a mail, "send it again" and sign-up say so, for any address', async ({
    page,
  }) => {
    const user = await newUser('minute')
    for (const email of [user.email, uniqueEmail('no-account')]) {
      await askForSignInLink(page, email)
      await expect(page.getByText(MINUTE_NOTICE)).toHaveCount(0)
      await page.getByRole('button', { name: 'send it again' }).click()
      await expect(page.getByRole('status')).toHaveText(MINUTE_NOTICE)
      // Said at once, alike for both: no "Check your email" for a mail that never goes out.
      await page.goto('/sign-up')
      await fillSignUp(page, email)
      await expect(page.getByText(MINUTE_NOTICE)).toBeVisible()
      await expect(page.getByRole('heading', { name: 'Check your email' })).toHaveCount(0)
    }

    await page.goto('/sign-up')
    await signUp(page, uniqueEmail('minute-sign-up'))
    await page.getByRole('button', { name: 'send it again' }).click()
    await expect(page.getByRole('status')).toHaveText(MINUTE_NOTICE)
    await expect(page.getByText('a new email is on its way')).toHaveCount(0)
  })

  test('sign-up starts in its first field and its limit speaks of sign-ups', async ({ page }) => {
    const email = uniqueEmail('sign-up-limit')
    await page.goto('/sign-up')
    await expect(page.getByRole('textbox', { name: 'Email' })).toBeFocused()
    for (let attempt = 0; ; attempt++) {
      await page.goto('/sign-up')
      await fillSignUp(page, email)
      if (await page.getByText('Too many sign-ups').isVisible()) break
      expect(attempt).toBeLessThan(8)
    }
    await expect(page.getByText(/attempts/)).toHaveCount(0)
    await page.goto(`/sign-in/confirm?${new URLSearchParams({ email })}`)
    await expect(page.getByRole('textbox', { name: 'Code from the email' })).toHaveAttribute(
      'inputmode',
      'numeric',
    )
  })

  test('too many attempts from this browser offers an emailed link', async ({ page }) => {
    const user = await newUser('lockout')
    await page.goto('/sign-in')
    for (let attempt = 0; ; attempt++) {
      await fillSignIn(page, user.email, 'not-the-password')
      if (await page.getByText('Too many attempts').isVisible()) break
      expect(attempt).toBeLessThan(12)
    }
    // One address, asked once: the emailed link is now the one primary button.
    await expect(page.getByRole('textbox', { name: /email/i })).toHaveCount(1)
    await expect(
      page.locator('form#sign-in').getByRole('button', { name: 'Sign in' }),
    ).not.toHaveClass(/bg-brand-600/)
    const link = page.getByRole('button', { name: 'Email me a sign-in link' })
    await expect(link).toHaveClass(/bg-brand-600/)
    await link.click()
    await expect(page).toHaveURL(/\/sign-in\/confirm\?/)
    await waitForMail(user.email, 'magiclink')

    // The warning mail's link opens the sign-in page with the address filled in.
    await page.goto(`/sign-in?${new URLSearchParams({ email: user.email })}`)
    await expect(page.locator('form#sign-in').getByLabel('Email')).toHaveValue(user.email)
  })

  test('words that say what is true', async ({ page }) => {
    for (const { path, lands, says, never, status } of WORDS) {
      const answer = await page.goto(path)
      if (status) expect(answer?.status(), path).toBe(status)
      if (lands) await expect(page).toHaveURL(lands)
      await expect(says(page).first(), path).toBeVisible()
      if (never) await expect(page.getByText(never), path).toHaveCount(0)
    }
    // In the browser that asked for a link, a tampered one: not valid, one address to ask again.
    await askForSignInLink(page, uniqueEmail('tampered'))
    await page.goto('/auth/callback?token_hash=tampered0123&type=magiclink')
    await expect(page.getByRole('alert')).toHaveText(AUTH_FAILURE_MESSAGES.magiclink)
    await expect(page.getByRole('main')).toContainText("isn't valid")
    await expect(page.getByRole('main')).not.toContainText('already used')
    await expect(page.getByRole('textbox', { name: /email/i })).toHaveCount(1)

    const user = await newUser('magic-words')
    await askForSignInLink(page, user.email)
    const { html } = await waitForMail(user.email, 'magiclink')
    const body = /<p>Someone[^<]*<\/p>/.exec(html)?.[0] ?? ''
    expect(body).toContain('asked to sign in')
    expect(body).not.toContain('new account')
  })
})

// A form's redirect is followed with GET: a 307 would re-send the sign-in form to billing.
for (const javaScriptEnabled of [true, false]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled })

    test('a Polar subscriber signing in on a second device lands on billing', async ({ page }) => {
      const user = await newUser('second-device')
      const customer = await createPolarCustomer(user.id, user.email)
      await seedSubscription(user.id, { provider: 'polar', polar_customer_id: customer })
      const back = new URLSearchParams({ redirectTo: '/subscribe/pro?provider=polar' })
      await page.goto(`/sign-in?${back}`)
      await fillSignIn(page, user.email)
      await expect(page).toHaveURL(/\/dashboard\/settings\/billing\?notice=already-subscribed$/)
      await expect(page.getByText(noticeByKey('already-subscribed').text)).toBeVisible()

      const replayed = await page.request.post('/dashboard/settings/billing', {
        form: { intent: 'password', email: user.email },
        maxRedirects: 0,
      })
      expect(replayed.status()).toBe(400)
      expect(await replayed.text()).toContain(UNKNOWN_FORM)
    })
  })
}

test.describe('phone width: compact menus', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  test('the header and the dashboard navigation each fit one row and open as a menu', async ({
    page,
  }) => {
    const user = await newUser('phone-menu')
    await signIn(page, user.email)
    await page.goto('/dashboard/settings/general')
    const header = page.locator('header')
    expect((await header.boundingBox())!.height).toBeLessThan(80)
    await expect(header.getByRole('link', { name: 'Pricing' })).toBeHidden()
    await expect(header.locator('summary')).toHaveText('Menu: Dashboard')
    await header.locator('summary').click()
    await expect(header.getByRole('link', { name: 'Pricing' })).toBeVisible()
    await header.locator('summary').click()

    const dashboardNav = page.getByRole('navigation', { name: 'Dashboard' })
    expect((await dashboardNav.boundingBox())!.height).toBeLessThan(60)
    await expect(dashboardNav.locator('summary')).toHaveText('Dashboard menu: General')
    await dashboardNav.getByText('Dashboard menu').click()
    await dashboardNav.getByRole('link', { name: 'Billing' }).click()
    await expect(page).toHaveURL(/\/dashboard\/settings\/billing$/)
    await expect(dashboardNav.locator('summary')).toHaveText('Dashboard menu: Billing')
  })

  test('with JavaScript, a click outside an open menu closes it', async ({ browser }) => {
    const page = await otherDevice(browser, { javaScriptEnabled: true, viewport: PHONE })
    await page.goto('/pricing')
    await page.waitForLoadState('networkidle')
    const header = page.locator('header')
    await expect(header.locator('summary')).toHaveText('Menu: Pricing')
    await header.locator('summary').click()
    await expect(header.getByRole('link', { name: 'Contact' })).toBeVisible()
    await page.getByRole('main').click({ position: { x: 10, y: 200 } })
    await expect(header.getByRole('link', { name: 'Contact' })).toBeHidden()
    await page.context().close()
  })
})
