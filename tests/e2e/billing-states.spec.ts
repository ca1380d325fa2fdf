import type { Locator, Page } from '@playwright/test'

import { noticeByKey } from '../../app/lib/pages/notices'
import {
  createPolarCustomer,
  createStripeCustomer,
  daysFromNow,
  type SeededPayment,
  seedPayments,
  seedSubscription,
  shownDate,
} from './billing-seed'
import { createUser, deleteUser, expect, signIn, test, uniqueEmail } from './fixtures'
import { E2E } from './ports'

/**
 * The billing page for each state a subscriber can be in. The rows are seeded with the
 * service role (a checkout cannot reach most of these states quickly); the portals are the
 * emulators' own, for customers that exist there.
 */

const users: string[] = []
test.afterEach(async () => {
  await Promise.all(users.splice(0).map((id) => deleteUser(id)))
})

async function newUser(label: string) {
  const user = await createUser(uniqueEmail(label))
  users.push(user.id)
  return user
}

const subscriptionRegion = (page: Page) =>
  page.getByRole('region', { name: 'Current subscription' })
const paymentsRegion = (page: Page) => page.getByRole('region', { name: 'Payment history' })

/** The value shown for a term of the subscription's description list. */
const detail = (region: Locator, term: string) =>
  region
    .locator('dt', { hasText: new RegExp(`^${term}$`) })
    .locator('xpath=following-sibling::dd[1]')

async function openBilling(page: Page, email: string) {
  await signIn(page, email)
  await page.goto('/dashboard/settings/billing')
  await expect(page.getByRole('heading', { level: 1, name: 'Billing' })).toBeVisible()
}

const stripePortalUrl = new RegExp(`^${E2E.stripeUrl}/portal/bps_\\w+`)
const polarPortalUrl = new RegExp(
  `^http://(?:localhost|127\\.0\\.0\\.1):${E2E.polarPort}/portal/polar_cst_[\\w-]+$`,
)
const PORTAL_DOWN = noticeByKey('portal-failed').text

test('a trialing subscriber sees when the trial ends', async ({ page }) => {
  const user = await newUser('billing-trial')
  const trialEnd = daysFromNow(11)
  const periodStart = daysFromNow(-3)
  await seedSubscription(user.id, {
    status: 'trialing',
    plan_name: 'Starter',
    billing_cycle: 'year',
    trial_start: periodStart,
    trial_end: trialEnd,
    current_period_start: periodStart,
    current_period_end: trialEnd,
  })
  await openBilling(page, user.email)

  const subscription = subscriptionRegion(page)
  await expect(subscription.getByRole('status')).toHaveText(
    `Your trial ends on ${shownDate(trialEnd)}.`,
  )
  await expect(detail(subscription, 'Plan')).toHaveText('Starter')
  await expect(detail(subscription, 'Status')).toHaveText('Trial')
  // Billed yearly, not at the catalogue's interval: no price to promise.
  await expect(detail(subscription, 'Next payment')).toHaveText('—')
  await expect(detail(subscription, 'Payment')).toHaveText('By card')
  await expect(subscription).not.toContainText('Scheduled to cancel')
  await expect(subscription.getByRole('button', { name: 'Manage billing' })).toBeVisible()

  await page.goto('/dashboard')
  await expect(page.getByRole('region', { name: 'Your plan' })).toContainText(
    `Status: Trial · Trial ends ${shownDate(trialEnd)}`,
  )
})

test('a cancellation scheduled for a date is announced, the plan still active', async ({
  page,
}) => {
  const user = await newUser('billing-cancel-scheduled')
  const cancelAt = daysFromNow(20)
  await seedSubscription(user.id, {
    status: 'active',
    cancel_at_period_end: true,
    cancel_at: cancelAt,
    current_period_end: cancelAt,
  })
  await openBilling(page, user.email)

  const subscription = subscriptionRegion(page)
  await expect(subscription.getByRole('status')).toHaveText(
    `Scheduled to cancel on ${shownDate(cancelAt)}. You keep Pro until then; to keep it after that, choose Resume subscription below.`,
  )
  await expect(subscription.getByRole('button', { name: 'Resume subscription' })).toBeVisible()
  await expect(detail(subscription, 'Status')).toHaveText(`Canceling · ends ${shownDate(cancelAt)}`)
  await expect(subscription).not.toContainText('was canceled')
})

test('a canceled subscriber sees when it ended and is offered a new plan', async ({ page }) => {
  const user = await newUser('billing-canceled')
  const canceledAt = daysFromNow(-2)
  // Stripe leaves cancel_at_period_end set on an ended subscription: no "scheduled" banner.
  await seedSubscription(user.id, {
    status: 'canceled',
    cancel_at_period_end: true,
    cancel_at: canceledAt,
    canceled_at: canceledAt,
    current_period_end: canceledAt,
  })
  await openBilling(page, user.email)

  const subscription = subscriptionRegion(page)
  await expect(subscription.getByRole('status')).toHaveText(
    `Your subscription was canceled on ${shownDate(canceledAt)}.`,
  )
  await expect(subscription).not.toContainText('Scheduled to cancel')
  await expect(detail(subscription, 'Status')).toHaveText('Canceled')
  await subscription.getByRole('link', { name: 'Choose a plan' }).click()
  await expect(page).toHaveURL(`${E2E.siteUrl}/pricing`)
})

test('a past-due subscriber is told, on the dashboard and billing, how to fix the payment', async ({
  page,
}) => {
  const user = await newUser('billing-past-due')
  await seedSubscription(user.id, {
    status: 'past_due',
    provider: 'stripe',
    stripe_customer_id: await createStripeCustomer(user.email),
  })
  await openBilling(page, user.email)

  const notice =
    'Your last payment did not go through. Update your payment method to keep your plan.'
  const subscription = subscriptionRegion(page)
  await expect(detail(subscription, 'Status')).toHaveText('Past due')
  await expect(subscription.getByRole('alert')).toContainText(notice)
  await expect(subscription.getByRole('button', { name: 'Manage billing' })).toBeVisible()
  // Still a live subscription: no second purchase offered.
  await expect(subscription.getByRole('link', { name: 'Choose a plan' })).toHaveCount(0)

  // The dashboard leads with the same words and the action that fixes it.
  await page.goto('/dashboard')
  const banner = page.getByRole('alert')
  await expect(banner).toContainText(notice)
  await banner.getByRole('button', { name: 'Update payment method' }).click()
  await expect(page).toHaveURL(stripePortalUrl)
})

test('an unknown status and missing details are shown sensibly', async ({ page }) => {
  const user = await newUser('billing-unknown')
  await seedSubscription(user.id, {
    status: 'awaiting_bank_transfer',
    plan_name: null,
    billing_cycle: null,
    current_period_start: null,
    current_period_end: null,
  })
  await openBilling(page, user.email)

  const subscription = subscriptionRegion(page)
  await expect(detail(subscription, 'Status')).toHaveText('Awaiting bank transfer')
  await expect(detail(subscription, 'Plan')).toHaveText('—')
  await expect(detail(subscription, 'Next payment')).toHaveText('—')
  await expect(subscription.getByRole('status')).toHaveCount(0)
  await expect(subscription.getByRole('alert')).toHaveCount(0)
  await expect(subscription.getByRole('button', { name: 'Manage billing' })).toBeVisible()
})

test('a Stripe subscriber manages billing in the Stripe portal', async ({ page }) => {
  const user = await newUser('billing-stripe')
  await seedSubscription(user.id, {
    provider: 'stripe',
    stripe_customer_id: await createStripeCustomer(user.email),
  })
  await openBilling(page, user.email)

  const subscription = subscriptionRegion(page)
  await expect(detail(subscription, 'Payment')).toHaveText('By card')
  await subscription.getByRole('button', { name: 'Manage billing' }).click()
  await expect(page).toHaveURL(stripePortalUrl)
})

test('a Polar subscriber manages billing in the Polar portal', async ({ page }) => {
  const user = await newUser('billing-polar')
  await seedSubscription(user.id, {
    provider: 'polar',
    polar_customer_id: await createPolarCustomer(user.id, user.email),
  })
  await openBilling(page, user.email)

  const subscription = subscriptionRegion(page)
  await expect(detail(subscription, 'Payment')).toHaveText('With Polar')
  await subscription.getByRole('button', { name: 'Manage billing' }).click()
  await expect(page).toHaveURL(polarPortalUrl)
  await expect(page.getByRole('heading', { name: 'Customer portal' })).toBeVisible()
})

test('"Manage billing" failing shows a clear message and stays on the page', async ({ page }) => {
  const user = await newUser('billing-portal-fails')
  // A customer the Stripe emulator has never heard of: the portal session is refused.
  await seedSubscription(user.id, { provider: 'stripe', stripe_customer_id: 'cus_unknown_e2e' })
  await openBilling(page, user.email)

  await page.getByRole('button', { name: 'Manage billing' }).click()
  await expect(page.getByRole('alert')).toHaveText(PORTAL_DOWN)
  await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing`)
  await expect(page.getByRole('button', { name: 'Manage billing' })).toBeEnabled()
})

test('a subscription row with no customer to manage says so', async ({ page }) => {
  const user = await newUser('billing-no-customer')
  await seedSubscription(user.id, { provider: 'polar', polar_customer_id: null })
  await openBilling(page, user.email)
  await page.getByRole('button', { name: 'Manage billing' }).click()
  await expect(page.getByRole('alert')).toHaveText(
    'We could not find a subscription to manage. Choose a plan on the pricing page.',
  )
})

/** Twelve payments, seeded out of order; index 0 is the newest. */
function twelvePayments(): SeededPayment[] {
  return Array.from({ length: 12 }, (_, index) => {
    const created_at = daysFromNow(-1 - index * 30)
    if (index === 0)
      return {
        amount: -2900,
        status: 'refunded',
        description: 'Refund of Pro',
        invoice_url: null,
        created_at,
      }
    if (index === 1)
      return {
        provider: 'polar' as const,
        amount: 1950,
        currency: 'eur',
        status: 'succeeded',
        description: 'Starter payment',
        invoice_url: null,
        created_at,
      }
    return {
      amount: 2900,
      status: 'paid',
      description: `Pro payment ${index}`,
      invoice_url: `https://invoices.example.com/in_${index}`,
      created_at,
    }
  }).reverse()
}

test('payment history: newest first, money in its currency, refunds negative, two pages', async ({
  page,
}) => {
  const user = await newUser('billing-payments')
  await seedSubscription(user.id)
  const payments = twelvePayments()
  await seedPayments(user.id, payments)
  await openBilling(page, user.email)

  const history = paymentsRegion(page)
  const rows = history.getByRole('row')
  await expect(rows).toHaveCount(11) // header + 10
  await expect(rows.nth(0)).toHaveText(
    ['Date', 'Description', 'Amount', 'Status', 'Invoice'].join(''),
  )
  const newest = payments.at(-1)!
  await expect(rows.nth(1).getByRole('cell')).toHaveText([
    shownDate(newest.created_at),
    'Refund of Pro',
    '-$29.00',
    'Refunded',
    'Not available yet',
  ])
  await expect(rows.nth(2).getByRole('cell')).toHaveText([
    shownDate(payments.at(-2)!.created_at),
    'Starter payment',
    '€19.50',
    'Paid',
    'Not available yet',
  ])
  await expect(rows.nth(3)).toContainText('Pro payment 2')
  await expect(rows.nth(3)).toContainText('$29.00')
  await expect(rows.nth(3).getByRole('link', { name: 'View invoice' })).toHaveAttribute(
    'href',
    'https://invoices.example.com/in_2',
  )
  await expect(rows.nth(10)).toContainText('Pro payment 9')

  const pages = history.getByRole('navigation', { name: 'Payment history pages' })
  await expect(pages).toContainText('Page 1 of 2')
  await expect(pages.getByRole('link', { name: 'Newer payments' })).toHaveCount(0)
  await pages.getByRole('link', { name: 'Older payments' }).click()
  await expect(page).toHaveURL(/\/dashboard\/settings\/billing\?page=2$/)
  await expect(pages).toContainText('Page 2 of 2')
  await expect(rows).toHaveCount(3)
  await expect(rows.nth(1)).toContainText('Pro payment 10')
  await expect(rows.nth(2)).toContainText('Pro payment 11')
  await expect(pages.getByRole('link', { name: 'Older payments' })).toHaveCount(0)
  await pages.getByRole('link', { name: 'Newer payments' }).click()
  await expect(pages).toContainText('Page 1 of 2')
  await expect(rows.nth(1)).toContainText('Refund of Pro')
})

test('a page number past the end shows the last page, not an error', async ({ page }) => {
  const user = await newUser('billing-page-past-end')
  await seedPayments(user.id, twelvePayments())
  await signIn(page, user.email)
  const response = await page.goto('/dashboard/settings/billing?page=7')
  expect(response?.status()).toBe(200)
  const history = paymentsRegion(page)
  await expect(history).toContainText('Page 2 of 2')
  await expect(history.getByRole('row')).toHaveCount(3)
})

test('no subscription: an upgrade call to action and an empty history', async ({ page }) => {
  const user = await newUser('billing-none')
  await openBilling(page, user.email)

  const subscription = subscriptionRegion(page)
  await expect(subscription).toContainText('You do not have a subscription yet.')
  await expect(subscription.getByRole('button', { name: 'Manage billing' })).toHaveCount(0)
  await expect(paymentsRegion(page)).toContainText('No payments yet.')
  await subscription.getByRole('link', { name: 'Choose a plan' }).click()
  await expect(page).toHaveURL(`${E2E.siteUrl}/pricing`)
  await expect(page.getByRole('heading', { level: 1, name: 'Plans and pricing' })).toBeVisible()
})

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false })

  test('"Manage billing" opens the portal, or shows the failure, with a full page post', async ({
    page,
  }) => {
    const user = await newUser('billing-nojs')
    await seedSubscription(user.id, { provider: 'stripe', stripe_customer_id: 'cus_unknown_nojs' })
    await openBilling(page, user.email)
    await page.getByRole('button', { name: 'Manage billing' }).click()
    await expect(page.getByRole('alert')).toHaveText(PORTAL_DOWN)
    await expect(page.getByRole('heading', { level: 1, name: 'Billing' })).toBeVisible()

    const other = await newUser('billing-nojs-polar')
    await seedSubscription(other.id, {
      provider: 'polar',
      polar_customer_id: await createPolarCustomer(other.id, other.email),
    })
    await page.context().clearCookies()
    await openBilling(page, other.email)
    await page.getByRole('button', { name: 'Manage billing' }).click()
    await expect(page).toHaveURL(polarPortalUrl)
  })

  test('payment pages are plain links', async ({ page }) => {
    const user = await newUser('billing-nojs-pages')
    await seedPayments(user.id, twelvePayments())
    await openBilling(page, user.email)
    const history = paymentsRegion(page)
    await history.getByRole('link', { name: 'Older payments' }).click()
    await expect(history).toContainText('Page 2 of 2')
    await expect(history.getByRole('row')).toHaveCount(3)
  })
})

test.describe('on a 390 px phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

  test('the payment history fits: every payment with its status and invoice link', async ({
    page,
  }, testInfo) => {
    const user = await newUser('billing-phone')
    await seedSubscription(user.id, { status: 'past_due' })
    await seedPayments(user.id, twelvePayments())
    await openBilling(page, user.email)

    const payments = paymentsRegion(page)
      .getByRole('list', { name: 'Payments' })
      .getByRole('listitem')
    await expect(payments).toHaveCount(10)
    await expect(payments.nth(0)).toContainText('Refund of Pro')
    await expect(payments.nth(0)).toContainText('Refunded')
    const invoice = payments.nth(2).getByRole('link', { name: 'View invoice' })
    await expect(invoice).toHaveAttribute('href', 'https://invoices.example.com/in_2')
    const box = await invoice.boundingBox()
    expect(box && box.x + box.width).toBeLessThanOrEqual(390)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await testInfo.attach('billing, phone', {
      body: await page.screenshot({ fullPage: true }),
      contentType: 'image/png',
    })
  })
})

test('billing and dashboard at desktop width', async ({ page }, testInfo) => {
  const user = await newUser('billing-desktop')
  await seedSubscription(user.id, { status: 'past_due' })
  await seedPayments(user.id, twelvePayments())
  await openBilling(page, user.email)
  await expect(paymentsRegion(page).getByRole('row')).toHaveCount(11)
  await testInfo.attach('billing, desktop', {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  })
  await page.goto('/dashboard')
  await expect(page.getByRole('alert')).toContainText('Update your payment method')
  await testInfo.attach('dashboard, past due, desktop', {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  })
})
