import type { Browser, Page, TestInfo } from '@playwright/test'

import { EMAIL_CHANGES_ONCE } from '../../app/account/limits'
import { LINK_NOT_VALID } from '../../app/auth/auth-errors'
import { noticeByKey } from '../../app/lib/pages/notices'
import { seedSubscription } from './billing-seed'
import {
  createUser,
  deleteAfterTest,
  expect,
  fillSignUp,
  newUser,
  PASSWORD,
  signIn,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'
import { E2E } from './ports'

/**
 * Journeys that used to end in a dead end, walked end to end at desktop and phone width:
 * an email change's first link, a sign-up confirmed on another device, a used reset link
 * and a sign-in before confirming. Forms are walked with JavaScript off; each fixed state is
 * a screenshot in the report.
 */

const VIEWPORTS = [
  { name: 'desktop', size: { width: 1280, height: 800 } },
  { name: 'phone', size: { width: 390, height: 844 } },
] as const

async function snap(page: Page, testInfo: TestInfo, name: string) {
  await testInfo.attach(name, {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  })
}

/** Follows an emailed link; in a browser that did not ask for it, confirms on the page first. */
async function openMailedLink(page: Page, link: string, button: RegExp) {
  await page.goto(link)
  if (new URL(page.url()).pathname === '/auth/confirm') {
    await page.getByRole('button', { name: button }).click()
  }
}

async function signUp(page: Page, email: string) {
  await fillSignUp(page, email)
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()
}

for (const viewport of VIEWPORTS) {
  test.describe(`${viewport.name}, JavaScript off`, () => {
    test.use({ javaScriptEnabled: false, viewport: viewport.size })

    test(`email change: a ✓ per opened link, one notice, the session kept (${viewport.name})`, async ({
      page,
    }, testInfo) => {
      const user = await newUser('change-from')
      const next = uniqueEmail('change-to')
      await signIn(page, user.email)
      await page.goto('/dashboard/settings/account')
      await page.getByRole('textbox', { name: 'New email' }).fill(next)
      await page.locator('form#change-email').getByLabel('Current password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Change email' }).click()
      // One notice, then one line per address once a link is opened.
      const pending = page.getByRole('status')
      await expect(pending).toHaveCount(1)
      await expect(pending).toContainText(EMAIL_CHANGES_ONCE)

      const toCurrent = await waitForMail(user.email, 'email_change')
      await openMailedLink(page, toCurrent.link!, /confirm/i)
      await expect(page).toHaveURL(/\/dashboard\/settings\/account\?email=confirmed$/)
      await expect(pending).toHaveCount(1)
      await expect(pending).toContainText(`✓ ${user.email}: opened`)
      await expect(pending).toContainText(`○ ${next}: not opened yet`)
      // Still signed in, as the same account.
      await expect(page.getByText(`Current email: ${user.email}`)).toBeVisible()
      await snap(page, testInfo, `email change, 1 of 2 confirmed (${viewport.name})`)

      const toNew = await waitForMail(next, 'email_change')
      await openMailedLink(page, toNew.link!, /confirm/i)
      await expect(page.getByRole('status').filter({ hasText: 'now' })).toHaveText(
        `Your email address is now ${next}.`,
      )
      await expect(page.getByText(`Current email: ${next}`)).toBeVisible()
      await snap(page, testInfo, `email change, done (${viewport.name})`)
    })

    test(`a used or expired reset link offers "Send a new link" (${viewport.name})`, async ({
      page,
    }, testInfo) => {
      const user = await newUser('reset-dead-end')
      // A link Supabase Auth no longer knows: a used link and a replaced one look alike. The
      // confirmation page says so before it offers any button, with the one way forward.
      const stale = `/auth/callback?token_hash=${'ab'.repeat(28)}&type=recovery&next=%2Freset-password`
      await staleResetLinkToNewOne(page, stale, user.email, async () => {
        await snap(page, testInfo, `used reset link (${viewport.name})`)
      })
      const mail = await waitForMail(user.email, 'recovery')
      // This browser asked for it: the link goes straight on to choosing a password.
      await openMailedLink(page, mail.link!, /choose a password/i)
      await expect(page).toHaveURL(/\/reset-password$/)
    })

    test(`signing in before confirming offers "Send the confirmation again" (${viewport.name})`, async ({
      page,
    }, testInfo) => {
      // Made through the admin API: unconfirmed, and no mail sent yet.
      const { email } = await createUser(uniqueEmail('unconfirmed'), { confirmed: false })
      await page.goto('/sign-in')
      const form = page.locator('form#sign-in')
      await form.getByLabel('Email').fill(email)
      await form.getByLabel('Password').fill(PASSWORD)
      await form.getByRole('button', { name: 'Sign in' }).click()
      await expect(page.getByRole('alert')).toContainText('Please confirm your email address first')
      await snap(page, testInfo, `sign-in before confirming (${viewport.name})`)
      await page.getByRole('button', { name: 'Send the confirmation again' }).click()
      await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()
      await expect(page.getByRole('status').first()).toContainText(
        `If ${email} is waiting to be confirmed, a new email is on its way.`,
      )
      const mail = await waitForMail(email, 'signup')
      await openMailedLink(page, mail.link!, /confirm/i)
      // No sign-up of this browser made the account: its password is not provably hers.
      await choosePassword(page, `chosen-${viewport.name}-password`)
      await expect(page.getByText(`Signed in as ${email}.`)).toBeVisible()
    })
  })
}

test('a used reset link with JavaScript on: the page says so at once, and "Send a new link" works', async ({
  page,
}) => {
  const user = await newUser('reset-dead-end-js')
  const stale = `/auth/callback?token_hash=${'cd'.repeat(28)}&type=recovery&next=%2Freset-password`
  await staleResetLinkToNewOne(page, stale, user.email)
  await waitForMail(user.email, 'recovery')
})

/**
 * Opens a reset link the auth server no longer knows: the confirmation page says it was used
 * (no button to press), and its "Send a new link" leads to the form that mails a new one.
 */
async function staleResetLinkToNewOne(
  page: Page,
  link: string,
  email: string,
  onStalePage: () => Promise<void> = async () => {},
) {
  await page.goto(link)
  await expect(page).toHaveURL(/\/auth\/confirm\?/)
  await expect(page.getByRole('heading', { name: LINK_NOT_VALID })).toBeVisible()
  await expect(page.getByRole('main').getByRole('button')).toHaveCount(0)
  await onStalePage()
  await page.getByRole('link', { name: 'Send a new link' }).click()
  await expect(page).toHaveURL(/\/forgot-password$/)
  await page.getByRole('textbox', { name: 'Email' }).fill(email)
  await page.getByRole('button', { name: 'Send reset link' }).click()
  await expect(page.getByRole('status')).toContainText(`If an account exists for ${email}`)
}

/** Signs up from "Get started with Pro" and leaves the page on "Check your email". */
async function signUpForPro(page: Page, email: string) {
  await page.goto('/pricing')
  const pro = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Pro' }) })
  await pro.getByRole('link', { name: 'Get started with Pro: Pay by card' }).click()
  await expect(page).toHaveURL(/\/sign-up\?redirectTo=%2Fsubscribe%2Fpro%3Fprovider%3Dstripe$/)
  // The page says which plan, and which way to pay, the visitor chose.
  await expect(page.getByRole('main')).toContainText(
    "You're signing up for Pro, $29.00/month, paying by card.",
  )
  await signUp(page, email)
}

/**
 * Led to choose a password once an address is proven (docs/security.md, "Accounts set up
 * before their owner"): the page says why; saved, it lands on the dashboard.
 */
async function choosePassword(page: Page, password: string) {
  await expect(page).toHaveURL(/\/reset-password\?notice=choose-password$/)
  await expect(page.getByRole('status').first()).toHaveText(noticeByKey('choose-password').text)
  await page.getByLabel('New password', { exact: true }).fill(password)
  await page.getByLabel('Repeat new password').fill(password)
  await page.getByRole('button', { name: 'Save new password' }).click()
  await expect(page).toHaveURL(/\/dashboard\?notice=password-updated$/)
}

/**
 * A phone (its own browser context, nothing shared) opens the mail and confirms: it cannot show
 * that the desktop's password is its own, so it chooses one; the plan stays with the desktop.
 */
async function confirmOnPhone(browser: Browser, email: string, testInfo: TestInfo) {
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } })
  const page = await phone.newPage()
  const mail = await waitForMail(email, 'signup')
  await openMailedLink(page, mail.link!, /confirm/i)
  await snap(page, testInfo, 'confirmed on the phone: choose the password')
  await choosePassword(page, PHONE_PASSWORD)
  await expect(page.getByText(`Signed in as ${email}.`)).toBeVisible()
  await phone.close()
}

const PHONE_PASSWORD = 'chosen-on-the-phone'

for (const javaScript of [true, false]) {
  test(`confirmed on another device: the phone chooses the password, the waiting tab moves on to the plan (JavaScript ${javaScript ? 'on' : 'off'})`, async ({
    browser,
  }, testInfo) => {
    test.setTimeout(90_000)
    const desktop = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      javaScriptEnabled: javaScript,
    })
    const page = await desktop.newPage()
    const email = uniqueEmail(`other-device-${javaScript ? 'js' : 'nojs'}`)
    deleteAfterTest(email)
    await signUpForPro(page, email)
    await snap(page, testInfo, 'check your email, waiting (desktop)')

    await confirmOnPhone(browser, email, testInfo)

    if (!javaScript) {
      // Without JavaScript the page does not ask by itself: the link asks once more.
      await page.getByRole('link', { name: 'I have confirmed my email' }).click()
    }
    await expect(page).toHaveURL(/\/sign-in\?notice=confirmed-sign-in/, { timeout: 15_000 })
    await expect(page.getByRole('status').first()).toHaveText(noticeByKey('confirmed-sign-in').text)
    const form = page.locator('form#sign-in')
    await expect(form.getByLabel('Email')).toHaveValue(email)
    await snap(page, testInfo, 'the waiting tab moved on (desktop)')
    await form.getByLabel('Password').fill(PHONE_PASSWORD)
    await form.getByRole('button', { name: 'Sign in' }).click()
    // The desktop continues to the plan it chose.
    await expect(page).toHaveURL(new RegExp(`^${E2E.stripeUrl}/checkout/cs_test_\\w+$`))
    await desktop.close()
  })
}

test('the waiting page says so when the address is not confirmed yet (JavaScript off)', async ({
  browser,
}) => {
  const context = await browser.newContext({ javaScriptEnabled: false })
  const page = await context.newPage()
  const email = uniqueEmail('not-yet')
  deleteAfterTest(email)
  await page.goto('/sign-up')
  await signUp(page, email)
  await page.getByRole('link', { name: 'I have confirmed my email' }).click()
  await expect(page.getByRole('status').first()).toContainText('Not confirmed yet')
  await context.close()
})

test('billing shows the plan with its price; on a phone every dashboard tab is in view', async ({
  page,
}, testInfo) => {
  const user = await newUser('billing-price')
  await seedSubscription(user.id, { plan_name: 'Pro', billing_cycle: 'month' })
  await page.setViewportSize({ width: 390, height: 844 })
  await signIn(page, user.email)
  await page.goto('/dashboard/settings/billing')
  const plan = page
    .getByRole('region', { name: 'Current subscription' })
    .locator('dt', { hasText: /^Plan$/ })
    .locator('xpath=following-sibling::dd[1]')
  await expect(plan).toHaveText('Pro · $29.00 / month')
  // No tab of the opened menu is cut at the screen's edge: each lies wholly inside the viewport.
  const nav = page.getByRole('navigation', { name: 'Dashboard' })
  await nav.getByText('Dashboard menu').click()
  const tabs = nav.getByRole('link')
  await expect(tabs).toHaveCount(5)
  for (const tab of await tabs.all()) {
    const box = (await tab.boundingBox())!
    expect(box.x).toBeGreaterThanOrEqual(0)
    expect(box.x + box.width).toBeLessThanOrEqual(390)
  }
  await snap(page, testInfo, 'billing with the price, and the tabs (phone)')
})

for (const javaScriptEnabled of [true, false]) {
  test(`sign-in starts on the email field (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled })
    const page = await context.newPage()
    await page.goto('/sign-in')
    await expect(page.locator('form#sign-in').getByLabel('Email')).toBeFocused()
    await context.close()
  })
}
