import { noticeByKey } from '../../app/lib/pages/notices'
import { subscribeAtStripe } from '../integration/accounts'
import { mailSubject } from '../integration/mail-support'
import {
  createPolarCustomer,
  emulatorStripe,
  renewAtStripe,
  seedSubscription,
  shownDate,
  triggerAtPolar,
} from './billing-seed'
import {
  adminClient,
  axeLightAndDark,
  detail,
  expect,
  mailTo,
  newUser,
  PHONE,
  signedInUser,
  signIn,
  stripePortalUrl,
  subscribe,
  test,
  untilWebhookApplied,
} from './fixtures'
import { E2E } from './ports'

/** A declined renewal recovered on billing, JavaScript off; with it, another tab's payment. */

/** A Pro subscriber (through the Stripe API, as checkout would) whose renewal is declined. */
async function pastDueSubscriber(label: string) {
  const user = await newUser(label)
  const { subscription } = await subscribeAtStripe(emulatorStripe(), user)
  await renewAtStripe(subscription.id, { fail: true })
  const declined = await emulatorStripe().subscriptions.retrieve(subscription.id)
  const invoice = await emulatorStripe().invoices.retrieve(declined.latest_invoice as string)
  return { user, invoice }
}

async function subscriptionRow(userId: string) {
  const { data } = await adminClient()
    .from('user_subscriptions')
    .select('status, payment_failed_at, polar_subscription_id')
    .eq('user_id', userId)
    .maybeSingle<{ status: string; payment_failed_at: string; polar_subscription_id: string }>()
  return data
}

test.describe('payment recovery with JavaScript off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  test('a declined renewal is fixed from the billing page', async ({ page }) => {
    test.setTimeout(90_000)
    const { user, invoice } = await pastDueSubscriber('recovery')
    await signIn(page, user.email)
    const retry = shownDate(new Date(invoice.next_payment_attempt! * 1000).toISOString())
    expect((await mailTo(user.email, mailSubject('payment_failed'))).text).toContain(
      `Update your payment method: ${E2E.siteUrl}/dashboard/settings/billing`,
    )

    const plan = page.getByRole('region', { name: 'Your plan' })
    await untilWebhookApplied(page, '/dashboard', (soon) =>
      soon(plan).toContainText(`we will retry on ${retry}`),
    )
    const failed = shownDate((await subscriptionRow(user.id))!.payment_failed_at)
    const summary = `Your payment on ${failed} did not go through; we will retry on ${retry}`
    await expect(plan).toContainText(`Status: Past due · ${summary}`)
    await expect(plan).not.toContainText('Renews on')
    await expect(page.getByRole('alert')).toHaveText(
      new RegExp(`${summary}\\. Update your payment method to keep your plan\\.`),
    )

    const payments = page.getByRole('region', { name: 'Payment history' })
    await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
      soon(payments.getByRole('link', { name: 'Pay', exact: true })).toHaveCount(1),
    )
    const alert = page.getByRole('alert')
    await expect(alert).toContainText(summary.replace('payment', 'payment of $29.00'))
    await expect(alert.getByRole('button', { name: 'Update payment method' })).toBeVisible()
    const pay = payments.getByRole('link', { name: 'Pay', exact: true })
    await expect(pay).toHaveAttribute('href', invoice.hosted_invoice_url!)
    await expect(payments.getByRole('listitem').first()).toContainText('Failed')
    const payBox = await pay.boundingBox()
    expect(payBox && payBox.x + payBox.width).toBeLessThanOrEqual(PHONE.width)
    const manage = page.getByRole('button', { name: 'Manage billing' })
    await expect(manage).toHaveClass(/bg-white/)

    await alert.getByRole('button', { name: 'Update payment method' }).click()
    await expect(page).toHaveURL(stripePortalUrl)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Update payment method')
    await expect(page.getByRole('button', { name: 'Cancel at period end' })).toHaveCount(0)
    await page.getByLabel('Card number').fill('4242 4242 4242 4242')
    await page.getByRole('button', { name: 'Save payment method' }).click()
    await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing?card=saved`)

    // Back with a new card: amber, not red, and paying with it is the one primary action.
    await expect(alert).toHaveText(
      new RegExp(
        `^Your new card is saved\\. Pay the \\$29\\.00 now, or we will retry on ${retry}\\.`,
      ),
    )
    await expect(alert).toHaveClass(/bg-amber-50/)
    const subscription = page.getByRole('region', { name: 'Current subscription' })
    const primary = subscription.locator('.bg-brand-600')
    await expect(primary).toHaveCount(1)
    await expect(primary).toHaveText('Pay $29.00 now')
    await expect(alert.getByRole('button', { name: 'Update payment method' })).toHaveClass(
      /bg-white/,
    )
    // Nothing leads to the hosted invoice page, which would ask for the card again.
    await expect(page.getByRole('link', { name: /^Pay/ })).toHaveCount(0)

    await primary.click()
    await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing?notice=invoice-paid`)
    await expect(page.getByRole('status').first()).toHaveText(noticeByKey('invoice-paid').text)
    await expect(page.getByRole('alert')).toHaveCount(0)
    await expect(detail(subscription, 'Status')).toHaveText('Active')
    await expect(page.getByRole('button', { name: 'Manage billing' })).toHaveClass(/bg-brand/)
    await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
      soon(payments.getByText('Failed')).toHaveCount(0),
    )
    await expect(payments.getByRole('link', { name: 'Pay', exact: true })).toHaveCount(0)
    await page.goto('/dashboard')
    await expect(plan).toContainText('Status: Active · Renews on')
  })

  test('a past-due Polar subscriber is told plainly where to change the card', async ({ page }) => {
    const user = await newUser('recovery-polar')
    await seedSubscription(user.id, {
      provider: 'polar',
      status: 'past_due',
      polar_customer_id: await createPolarCustomer(user.id, user.email),
    })
    await signIn(page, user.email)
    await page.goto('/dashboard/settings/billing')
    const alert = page.getByRole('alert')
    await expect(alert).toContainText(
      'Polar will try the payment again. To pay with another card, open the billing portal and add it under Payment methods.',
    )
    await expect(alert).not.toContainText('we will retry on')
    await alert.getByRole('button', { name: 'Update payment method' }).click()
    await expect(page).toHaveURL(new RegExp(`:${E2E.polarPort}/portal/`))
  })
})

test.describe('phone width', () => {
  test.use({ viewport: PHONE })

  test('a declined Polar renewal names its amount and reads Failed in the history and the CSV', async ({
    page,
  }) => {
    test.setTimeout(90_000)
    const user = await signedInUser(page, 'recovery-polar-renewal')
    await subscribe(page, 'polar')
    let subscriptionId: string | undefined
    await expect(async () => {
      subscriptionId = (await subscriptionRow(user.id))?.polar_subscription_id
      expect(subscriptionId).toBeTruthy()
    }).toPass({ timeout: 20_000 })
    // Polar's declined renewal: order.created (pending), then subscription.past_due.
    await triggerAtPolar({ type: 'renewal', subscription_id: subscriptionId, paid: false })

    const alert = page.getByRole('alert')
    await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
      soon(alert).toContainText('did not go through'),
    )
    const failed = shownDate((await subscriptionRow(user.id))!.payment_failed_at)
    await expect(alert).toContainText(`Your payment of $29.00 on ${failed} did not go through.`)
    const newest = page
      .getByRole('region', { name: 'Payment history' })
      .getByRole('listitem')
      .first()
    for (const text of ['Pro payment', '$29.00', 'Failed']) await expect(newest).toContainText(text)
    const csv = await (await page.request.get('/dashboard/settings/billing/payments.csv')).text()
    expect(csv.split('\r\n')[1]).toMatch(/^[\d-]+,"Pro payment",29\.00,USD,0\.00,"Failed",/)
    expect(await axeLightAndDark(page)).toEqual([])
  })
})

test('with JavaScript, billing follows a payment made in another tab when shown again', async ({
  page,
}) => {
  const { user, invoice } = await pastDueSubscriber('recovery-focus')
  await signIn(page, user.email)
  await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
    soon(page.getByRole('alert')).toContainText('did not go through'),
  )
  await page.evaluate(() => Object.assign(window, { stayed: true }))
  // Paid elsewhere (the hosted invoice page in another tab): Stripe's events apply it.
  await emulatorStripe().invoices.pay(invoice.id!, { paid_out_of_band: true })
  await expect(async () => {
    expect((await subscriptionRow(user.id))?.status).toBe('active')
  }).toPass({ timeout: 20_000 })
  await expect(page.getByRole('alert')).toBeVisible()
  await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')))
  await expect(page.getByRole('alert')).toHaveCount(0)
  // The same document: asked again, not reloaded.
  expect(await page.evaluate(() => 'stayed' in window)).toBe(true)
})
