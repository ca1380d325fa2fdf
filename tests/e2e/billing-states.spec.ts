import type { Page } from '@playwright/test'

import { noticeByKey } from '../../app/lib/pages/notices'
import {
  createPolarCustomer,
  createStripeCustomer,
  daysFromNow,
  type SeededPayment,
  type SeededSubscription,
  seedPayments,
  seedSubscription,
  shownDate,
} from './billing-seed'
import {
  detail,
  expect,
  newUser,
  PHONE,
  polarPortalUrl,
  signIn,
  stripePortalUrl,
  test,
} from './fixtures'
import { E2E } from './ports'

/** The billing page in each state a subscriber can be in, the rows seeded with the service role. */

const subscriptionRegion = (page: Page) =>
  page.getByRole('region', { name: 'Current subscription' })
const paymentsRegion = (page: Page) => page.getByRole('region', { name: 'Payment history' })

async function openBilling(page: Page, email: string) {
  await signIn(page, email)
  await page.goto('/dashboard/settings/billing')
  await expect(page.getByRole('heading', { level: 1, name: 'Billing' })).toBeVisible()
}

const PORTAL_DOWN = noticeByKey('portal-failed').text
const PAST_DUE =
  'Your last payment did not go through. Update your payment method to keep your plan.'
const trialEnd = daysFromNow(11)
const cancelAt = daysFromNow(20)
const canceledAt = daysFromNow(-2)

const STATES: {
  name: string
  seed: SeededSubscription | null
  notice: { role: 'status' | 'alert'; text: string } | null
  details?: Record<string, string>
  notSaid?: string
  offers: { role: 'button' | 'link'; name: string; href?: string }
  notOffered?: { role: 'button' | 'link'; name: string }
  dashboard?: string
}[] = [
  {
    name: 'a trialing subscriber sees when the trial ends',
    seed: {
      status: 'trialing',
      plan_name: 'Starter',
      billing_cycle: 'year',
      trial_start: daysFromNow(-3),
      trial_end: trialEnd,
      current_period_start: daysFromNow(-3),
      current_period_end: trialEnd,
    },
    notice: { role: 'status', text: `Your trial ends on ${shownDate(trialEnd)}.` },
    // Billed yearly, not at the catalogue's interval: no price to promise.
    details: { Plan: 'Starter', Status: 'Trial', 'Next payment': '—', Payment: 'By card' },
    notSaid: 'Scheduled to cancel',
    offers: { role: 'button', name: 'Manage billing' },
    dashboard: `Status: Trial · Trial ends ${shownDate(trialEnd)}`,
  },
  {
    name: 'a cancellation scheduled for a date is announced, the plan still active',
    seed: {
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: cancelAt,
      current_period_end: cancelAt,
    },
    notice: {
      role: 'status',
      text: `Scheduled to cancel on ${shownDate(cancelAt)}. You keep Pro until then; to keep it after that, choose Resume subscription below.`,
    },
    details: { Plan: 'Pro · $29.00 / month', Status: `Canceling · ends ${shownDate(cancelAt)}` },
    notSaid: 'was canceled',
    offers: { role: 'button', name: 'Resume subscription' },
  },
  {
    name: 'a canceled subscriber sees when it ended and is offered a new plan',
    // Stripe leaves cancel_at_period_end set on an ended subscription: no "scheduled" banner.
    seed: {
      status: 'canceled',
      cancel_at_period_end: true,
      cancel_at: canceledAt,
      canceled_at: canceledAt,
      current_period_end: canceledAt,
    },
    notice: { role: 'status', text: `Your subscription was canceled on ${shownDate(canceledAt)}.` },
    details: { Status: 'Canceled' },
    notSaid: 'Scheduled to cancel',
    offers: { role: 'link', name: 'Choose a plan', href: '/pricing' },
  },
  {
    name: 'an unknown status and missing details are shown sensibly',
    seed: {
      status: 'awaiting_bank_transfer',
      plan_name: null,
      billing_cycle: null,
      current_period_start: null,
      current_period_end: null,
    },
    notice: null,
    details: { Status: 'Awaiting bank transfer', Plan: '—', 'Next payment': '—' },
    offers: { role: 'button', name: 'Manage billing' },
  },
  {
    // Still a live subscription: no second purchase offered; the dashboard leads with it too.
    name: 'a past-due subscriber is told, on the dashboard and billing, how to fix the payment',
    seed: { status: 'past_due', provider: 'stripe' },
    notice: { role: 'alert', text: `${PAST_DUE}Update payment method` },
    details: { Status: 'Past due' },
    offers: { role: 'button', name: 'Manage billing' },
    notOffered: { role: 'link', name: 'Choose a plan' },
    dashboard: PAST_DUE,
  },
  {
    name: 'no subscription: an upgrade call to action and an empty history',
    seed: null,
    notice: null,
    notSaid: 'Scheduled to cancel',
    offers: { role: 'link', name: 'Choose a plan', href: '/pricing' },
    notOffered: { role: 'button', name: 'Manage billing' },
  },
]

for (const state of STATES) {
  test(state.name, async ({ page }) => {
    const user = await newUser('billing-state')
    // A past-due subscriber's banner opens the portal: a customer the emulator knows.
    const customer = state.dashboard === PAST_DUE ? await createStripeCustomer(user.email) : null
    if (state.seed)
      await seedSubscription(user.id, {
        ...state.seed,
        ...(customer && { stripe_customer_id: customer }),
      })
    await openBilling(page, user.email)
    const subscription = subscriptionRegion(page)
    if (state.notice)
      await expect(subscription.getByRole(state.notice.role)).toHaveText(state.notice.text)
    else
      await expect(
        subscription.getByRole('status').or(subscription.getByRole('alert')),
      ).toHaveCount(0)
    for (const [term, value] of Object.entries(state.details ?? {}))
      await expect(detail(subscription, term)).toHaveText(value)
    if (state.notSaid) await expect(subscription).not.toContainText(state.notSaid)
    const { role, name, href } = state.offers
    await expect(subscription.getByRole(role, { name })).toBeVisible()
    if (href) await expect(subscription.getByRole(role, { name })).toHaveAttribute('href', href)
    if (state.notOffered)
      await expect(subscription.getByRole(state.notOffered.role, state.notOffered)).toHaveCount(0)
    if (!state.seed) await expect(paymentsRegion(page)).toContainText('No payments yet.')
    if (!state.seed) await expect(subscription).toContainText('You do not have a subscription yet.')
    if (state.dashboard) {
      await page.goto('/dashboard')
      await expect(page.locator('body')).toContainText(state.dashboard)
    }
    for (const path of customer ? ['/dashboard', '/pricing'] : []) {
      await page.goto(path)
      await page.getByRole('button', { name: 'Update payment method' }).first().click()
      await expect(page).toHaveURL(stripePortalUrl)
    }
  })
}

for (const { provider, payment, portal } of [
  { provider: 'stripe', payment: 'By card', portal: stripePortalUrl },
  { provider: 'polar', payment: 'With Polar', portal: polarPortalUrl },
] as const) {
  test(`a ${provider} subscriber manages billing in the ${provider} portal`, async ({ page }) => {
    const user = await newUser(`billing-${provider}`)
    await seedSubscription(user.id, {
      provider,
      ...(provider === 'stripe'
        ? { stripe_customer_id: await createStripeCustomer(user.email) }
        : { polar_customer_id: await createPolarCustomer(user.id, user.email) }),
    })
    await openBilling(page, user.email)
    const subscription = subscriptionRegion(page)
    await expect(detail(subscription, 'Payment')).toHaveText(payment)
    await subscription.getByRole('button', { name: 'Manage billing' }).click()
    await expect(page).toHaveURL(portal)
    if (provider === 'polar')
      await expect(page.getByRole('heading', { name: 'Customer portal' })).toBeVisible()
  })
}

for (const { why, seed, message } of [
  // A customer the Stripe emulator has never heard of: the portal session is refused.
  { why: 'failing', seed: { stripe_customer_id: 'cus_unknown_e2e' }, message: PORTAL_DOWN },
  {
    why: 'without a customer to manage',
    seed: { provider: 'polar', polar_customer_id: null },
    message: 'We could not find a subscription to manage. Choose a plan on the pricing page.',
  },
]) {
  test(`"Manage billing" ${why} shows a clear message and stays on the page`, async ({ page }) => {
    const user = await newUser('billing-portal-fails')
    await seedSubscription(user.id, seed)
    await openBilling(page, user.email)
    await page.getByRole('button', { name: 'Manage billing' }).click()
    await expect(page.getByRole('alert')).toHaveText(message)
    await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing`)
    await expect(page.getByRole('button', { name: 'Manage billing' })).toBeEnabled()
  })
}

/** Twelve payments, seeded out of order; index 0 is the newest. */
function twelvePayments(): SeededPayment[] {
  return Array.from({ length: 12 }, (_, index) => {
    const created_at = daysFromNow(-1 - index * 30)
    if (index === 0)
      return { amount: -2900, status: 'refunded', description: 'Refund of Pro', created_at }
    if (index === 1)
      return {
        provider: 'polar' as const,
        amount: 1950,
        currency: 'eur',
        status: 'succeeded',
        description: 'Starter payment',
        created_at,
      }
    return {
      amount: 2900,
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
  await expect(rows.nth(1).getByRole('cell')).toHaveText([
    shownDate(payments.at(-1)!.created_at),
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

  const response = await page.goto('/dashboard/settings/billing?page=7')
  expect(response?.status()).toBe(200)
  await expect(history).toContainText('Page 2 of 2')
  await expect(rows).toHaveCount(3)
})

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false })

  test('payment pages are plain links; "Manage billing" opens the portal, or shows the failure, with a full page post', async ({
    page,
  }) => {
    const user = await newUser('billing-nojs')
    await seedSubscription(user.id, { provider: 'stripe', stripe_customer_id: 'cus_unknown_nojs' })
    await seedPayments(user.id, twelvePayments())
    await openBilling(page, user.email)
    const history = paymentsRegion(page)
    await history.getByRole('link', { name: 'Older payments' }).click()
    await expect(history).toContainText('Page 2 of 2')
    await expect(history.getByRole('row')).toHaveCount(3)
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
})

test('on a 390 px phone every payment, its status and invoice link fit', async ({ page }) => {
  const user = await newUser('billing-widths')
  await seedSubscription(user.id, { status: 'past_due' })
  await seedPayments(user.id, twelvePayments())
  await page.setViewportSize(PHONE)
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
})
