import {
  AUTH_FAILURE_MESSAGES,
  LINK_NOT_VALID,
  mailMinuteMessage,
} from '../../app/auth/auth-errors'
import { CONTACT_THANK_YOU } from '../../app/contact/schema'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { UNKNOWN_FORM } from '../../app/lib/forms/form-reply'
import { noticeByKey } from '../../app/lib/pages/notices'
import { createPolarCustomer, seedSubscription } from './billing-seed'
import {
  adminClient,
  askEmailChange,
  askForSignInLink,
  attachScreenshots,
  expect,
  fillSignIn,
  fillSignUp,
  newUser,
  openMailedLink,
  otherDevice,
  signIn,
  signUp,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'

/**
 * What the product promises, kept: a contact message that reaches the team, no mail promised
 * that was not sent, an email change that says which link is left, a way in when password
 * sign-in is refused, words that say what is true, a compact menu on phones and a page in
 * the product's layout for a malformed address. At phone width, JavaScript off (each step's
 * screenshot at desktop and phone width); accessibility.spec.ts scans the pages they visit.
 */

const PHONE = { width: 390, height: 844 }

/** The team's address of the local defaults (`Name <address>`). */
const TEAM_ADDRESS = /<([^>]+)>/.exec(LOCAL_DEFAULTS.CONTACT_TO)![1]

const MINUTE_NOTICE = new RegExp(
  mailMinuteMessage(40)
    .replace('40', '\\d+')
    .replace(/[.;]/g, (c) => `\\${c}`),
)

test.describe('phone width, JavaScript off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  test('a contact message is stored, reaches the team and sends a receipt', async ({
    page,
  }, testInfo) => {
    const user = await newUser('contact')
    await adminClient()
      .from('user_profiles')
      .update({ display_name: 'Ada King Lovelace' })
      .eq('user_id', user.id)
    await signIn(page, user.email)
    await page.goto('/contact')
    // Signed in: the name and the address are filled in.
    await expect(page.getByRole('textbox', { name: 'First name' })).toHaveValue('Ada')
    await expect(page.getByRole('textbox', { name: 'Last name' })).toHaveValue('King Lovelace')
    await expect(page.getByRole('textbox', { name: 'Email' })).toHaveValue(user.email)
    const company = `Engines ${Date.now().toString(36)}`
    const message = 'Can the Pro plan be paid yearly? Thanks.'
    const sentAt = new Date()
    await page.getByRole('textbox', { name: 'Company' }).fill(company)
    await page.getByRole('textbox', { name: 'Message' }).fill(message)
    await page.getByRole('button', { name: 'Send message' }).click()
    await expect(page.getByRole('status')).toContainText(CONTACT_THANK_YOU)

    const { data: stored } = await adminClient()
      .from('contact_messages')
      .select('first_name, last_name, email, company, message')
      .eq('company', company)
    expect(stored).toEqual([
      { first_name: 'Ada', last_name: 'King Lovelace', email: user.email, company, message },
    ])
    const toTeam = await waitForMail(TEAM_ADDRESS, 'smtp', { after: sentAt })
    expect(toTeam.subject).toBe(`Contact form: Ada King Lovelace, ${company}`)
    const receipt = await waitForMail(user.email, 'smtp', { after: sentAt })
    expect(receipt.subject).toBe('We received your message to Subscribely')
    await attachScreenshots(page, testInfo, 'contact sent')
  })

  test("a malformed address gets the product's not-found page", async ({ page }, testInfo) => {
    const answer = await page.goto('/%E0%A4%A')
    expect(answer?.status()).toBe(404)
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible()
    await expect(page.getByRole('link', { name: 'Subscribely' }).first()).toBeVisible()
    await attachScreenshots(page, testInfo, 'malformed address')
  })

  test('"send it again" within the minute says so, for any address', async ({ page }, testInfo) => {
    const user = await newUser('minute')
    for (const email of [user.email, uniqueEmail('no-account')]) {
      await askForSignInLink(page, email)
      await expect(page.getByText(MINUTE_NOTICE)).toHaveCount(0)
      await page.getByRole('button', { name: 'send it again' }).click()
      await expect(page.getByRole('status')).toHaveText(MINUTE_NOTICE)
    }

    await page.goto('/sign-up')
    await signUp(page, uniqueEmail('minute-sign-up'))
    await page.getByRole('button', { name: 'send it again' }).click()
    await expect(page.getByRole('status')).toHaveText(MINUTE_NOTICE)
    await expect(page.getByText('a new email is on its way')).toHaveCount(0)
    await attachScreenshots(page, testInfo, 'sent less than a minute ago')
  })

  test('a sign-up within a minute of another mail says so, for any address', async ({
    page,
  }, testInfo) => {
    const user = await newUser('minute-existing')
    for (const email of [user.email, uniqueEmail('minute-new')]) {
      await askForSignInLink(page, email)
      await page.goto('/sign-up')
      await fillSignUp(page, email)
      // Said at once, alike for both: no "Check your email" for a mail that never goes out.
      await expect(page.getByText(MINUTE_NOTICE)).toBeVisible()
      await expect(page.getByRole('heading', { name: 'Check your email' })).toHaveCount(0)
    }
    await attachScreenshots(page, testInfo, 'sign-up within the minute')
  })

  test('sign-up starts in its first field and its limit speaks of sign-ups', async ({
    page,
  }, testInfo) => {
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
    await attachScreenshots(page, testInfo, 'sign-up limit')
    // Code fields bring up the digits keyboard.
    await page.goto(`/sign-in/confirm?${new URLSearchParams({ email })}`)
    await expect(page.getByRole('textbox', { name: 'Code from the email' })).toHaveAttribute(
      'inputmode',
      'numeric',
    )
  })

  test('too many attempts from this browser offers an emailed link', async ({ page }, testInfo) => {
    const user = await newUser('lockout')
    await page.goto('/sign-in')
    for (let attempt = 0; ; attempt++) {
      await fillSignIn(page, user.email, 'not-the-password')
      if (await page.getByText('Too many attempts').isVisible()) break
      expect(attempt).toBeLessThan(12)
    }
    await attachScreenshots(page, testInfo, 'too many attempts')
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

  test('an email change: its subject, a ✓ per link, and the sidebar follows', async ({
    page,
    browser,
  }, testInfo) => {
    const user = await newUser('change-from')
    const next = uniqueEmail('change-to')
    await signIn(page, user.email)
    await askEmailChange(page, next)
    await expect(page.getByRole('status')).toHaveCount(1)
    await attachScreenshots(page, testInfo, 'email change pending')

    const toOld = await waitForMail(user.email, 'email_change')
    expect(toOld.subject).toBe('Confirm the change of your Subscribely sign-in email')
    const toNew = await waitForMail(next, 'email_change')
    // Both links opened on another device: this browser still holds the old session.
    const other = await otherDevice(browser, { javaScriptEnabled: false })
    for (const link of [toOld.link!, toNew.link!]) await openMailedLink(other, link)
    await other.context().close()
    await page.goto('/dashboard/settings/account')
    await expect(page.getByTestId('dashboard-user-name')).toHaveText(next)
    await expect(page.getByText(`Current email: ${next}`)).toBeVisible()
  })

  test('words that say what is true', async ({ page }) => {
    await page.goto('/auth/confirm?token_hash=tampered0123&type=magiclink')
    await expect(page.getByRole('heading', { name: LINK_NOT_VALID })).toBeVisible()
    // In the browser that asked for a link, a tampered one: not valid, one address to ask again.
    await askForSignInLink(page, uniqueEmail('tampered'))
    await page.goto('/auth/callback?token_hash=tampered0123&type=magiclink')
    await expect(page.getByRole('alert')).toHaveText(AUTH_FAILURE_MESSAGES.magiclink)
    await expect(page.getByRole('main')).toContainText("isn't valid")
    await expect(page.getByRole('main')).not.toContainText('already used')
    await expect(page.getByRole('textbox', { name: /email/i })).toHaveCount(1)

    await page.goto('/success?session_id=cs_test_nobody_knows')
    await expect(
      page.getByRole('heading', { level: 1, name: "We couldn't find that checkout" }),
    ).toBeVisible()
    await expect(page.getByText('not paid')).toHaveCount(0)

    for (const path of ['/dashboard/settings/billing', '/api/checkout?plan=pro']) {
      await page.goto(path)
      await expect(page).toHaveURL(/\/sign-in\?/)
      await expect(page.getByText(noticeByKey('sign-in-to-continue').text)).toBeVisible()
      await expect(page.getByText('Your session has ended')).toHaveCount(0)
    }

    await page.goto('/')
    await expect(page.getByText(/free account/i)).toHaveCount(0)
    await expect(
      page.locator('#main').getByRole('link', { name: 'Create an account' }),
    ).toBeVisible()

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

    test('a Polar subscriber signing in on a second device lands on billing', async ({
      page,
    }, testInfo) => {
      const user = await newUser('second-device')
      const customer = await createPolarCustomer(user.id, user.email)
      await seedSubscription(user.id, { provider: 'polar', polar_customer_id: customer })
      // Pricing's "Pay with Polar", signed out, then "Sign in" on the sign-up page.
      const back = new URLSearchParams({ redirectTo: '/subscribe/pro?provider=polar' })
      await page.goto(`/sign-in?${back}`)
      await fillSignIn(page, user.email)
      await expect(page).toHaveURL(/\/dashboard\/settings\/billing\?notice=already-subscribed$/)
      await expect(page.getByText(noticeByKey('already-subscribed').text)).toBeVisible()
      await attachScreenshots(page, testInfo, 'second device')

      // A form the billing page does not know opens nothing: the page says so.
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
  }, testInfo) => {
    const user = await newUser('phone-menu')
    await signIn(page, user.email)
    await page.goto('/dashboard/settings/general')
    const header = page.locator('header')
    expect((await header.boundingBox())!.height).toBeLessThan(80)
    await expect(header.getByRole('link', { name: 'Pricing' })).toBeHidden()
    // Each menu names the page it is on.
    await expect(header.locator('summary')).toHaveText('Menu: Dashboard')
    await header.locator('summary').click()
    await expect(header.getByRole('link', { name: 'Pricing' })).toBeVisible()
    await header.locator('summary').click()
    await attachScreenshots(page, testInfo, 'header menu open')

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
