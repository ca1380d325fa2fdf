import { mailSubject, receiptOf } from '../integration/mail-support'
import { renewAtStripe, stripeSubscriptionIdOf } from './billing-seed'
import {
  detail,
  expect,
  fillSignIn,
  mailTo,
  newUser,
  payOnStripeCheckout,
  planCard,
  signedInUser,
  stripeCheckoutUrl,
  stripePortalUrl,
  test,
  untilWebhookApplied,
} from './fixtures'
import { E2E } from './ports'

/** The Stripe journey: pricing, checkout, success, the webhook applied, the portal, the mails. */

const PRO = { plan_name: 'Pro' }

test('subscribe to Pro, see it in the dashboard, then cancel it at period end in the portal', async ({
  page,
}) => {
  test.setTimeout(120_000)
  const user = await signedInUser(page, 'stripe-journey')

  await page.goto('/pricing')
  const pro = planCard(page, 'Pro')
  await expect(pro).toContainText('$29.00')
  await pro.getByRole('button', { name: 'Subscribe to Pro: Pay by card' }).click()

  await expect(page).toHaveURL(stripeCheckoutUrl)
  await expect(page.getByRole('heading', { name: 'Subscribe to Pro' })).toBeVisible()
  await expect(page.getByText('$29.00')).toBeVisible()
  await expect(page.getByLabel('Email')).toHaveValue(user.email)
  await payOnStripeCheckout(page)

  await expect(page).toHaveURL(new RegExp(`^${E2E.siteUrl}/success\\?session_id=cs_test_\\w+$`))
  await expect(page.getByRole('heading', { level: 1, name: 'Payment successful' })).toBeVisible()
  const receipt = await mailTo(user.email, mailSubject('payment_receipt', {}, receiptOf(2900)))
  expect(receipt).toMatchObject({
    kind: 'smtp',
    text: expect.stringContaining(`Billing history: ${E2E.siteUrl}/dashboard/settings/billing`),
  })
  expect(receipt.text).toMatch(new RegExp(`View your invoice: ${E2E.stripeUrl}/invoices/in_\\w+`))

  const plan = page.getByRole('region', { name: 'Your plan' })
  // Active once the first invoice's event is applied.
  await untilWebhookApplied(page, '/dashboard', async (soon) => {
    await soon(plan.getByText('Pro', { exact: true })).toBeVisible()
    await soon(plan).toContainText('Status: Active')
  })
  await expect(plan).toContainText('Renews on')

  await page.goto('/pricing')
  await expect(page.getByText('Current plan', { exact: true })).toBeVisible()
  await expect(page.getByRole('button', { name: /Subscribe to .* with Stripe/ })).toHaveCount(0)

  await page.goto('/dashboard/settings/billing')
  const subscription = page.getByRole('region', { name: 'Current subscription' })
  await expect(subscription).toContainText('Pro')
  await expect(subscription).toContainText('Active')
  const payments = page.getByRole('region', { name: 'Payment history' })
  await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
    soon(payments.getByRole('row')).toHaveCount(2),
  )
  const payment = payments.getByRole('row').nth(1)
  for (const text of ['Pro payment', '$29.00', 'Paid']) await expect(payment).toContainText(text)
  await expect(payment.getByRole('link', { name: 'View invoice' })).toHaveAttribute(
    'href',
    new RegExp(`^${E2E.stripeUrl}/invoices/in_\\w+$`),
  )
  // The date, before the card that pays it (Stripe's only: Polar's webhooks carry none).
  const next = detail(subscription, 'Next payment')
  await expect(next).toHaveText(/^\$29\.00 on [A-Z][a-z]+ \d{1,2}, \d{4} · Visa •••• 4242$/)
  const periodEnd = (await next.textContent())!.replace('$29.00 on ', '').split(' · ')[0]

  await page.getByRole('button', { name: 'Manage billing' }).click()
  await expect(page).toHaveURL(stripePortalUrl)
  await expect(page.getByRole('heading', { name: 'Pro' })).toBeVisible()
  await page.getByRole('button', { name: 'Cancel at period end' }).click()
  await expect(
    page.getByText('Your subscription will be canceled at the end of the billing period.'),
  ).toBeVisible()
  await page.getByRole('link', { name: 'Return to site' }).click()

  await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing`)
  await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
    soon(page.getByText(`Scheduled to cancel on ${periodEnd}`)).toBeVisible(),
  )
  const canceled = await mailTo(user.email, mailSubject('subscription_canceled', PRO))
  expect(canceled.text).toContain('You keep access until')
  await page.goto('/dashboard')
  await expect(plan).toContainText(`Cancels on ${periodEnd}`)
  await expect(plan).toContainText('Status: Active')

  // At the period end Stripe ends it (customer.subscription.deleted): no longer "Cancels on".
  await renewAtStripe(await stripeSubscriptionIdOf(user.id))
  await untilWebhookApplied(page, '/dashboard', (soon) =>
    soon(plan).toContainText('Status: Canceled'),
  )
  await expect(plan).toContainText('Canceled on')
  await expect(plan).not.toContainText('Cancels on')
  const ended = await mailTo(user.email, mailSubject('subscription_ended', PRO))
  expect(ended.text).toContain(`Subscribe again: ${E2E.siteUrl}/pricing`)
  await page.goto('/pricing')
  await expect(page.getByRole('button', { name: 'Subscribe to Pro: Pay by card' })).toBeVisible()
})

test('a declined card shows the error and creates no subscription', async ({ page }) => {
  await signedInUser(page, 'stripe-declined')
  await page.goto('/pricing')
  await page.getByRole('button', { name: 'Subscribe to Starter: Pay by card' }).click()
  await expect(page).toHaveURL(stripeCheckoutUrl)
  await payOnStripeCheckout(page, '4000 0000 0000 0002')

  await expect(page.getByRole('alert')).toHaveText('Your card was declined.')
  await expect(page).toHaveURL(stripeCheckoutUrl)

  await page.getByRole('link', { name: 'Back' }).click()
  await expect(page).toHaveURL(`${E2E.siteUrl}/pricing?canceled=true`)
  await expect(page.getByText('Checkout was canceled and you have not been charged.')).toBeVisible()
  await page.goto('/pricing')
  await expect(page.getByText('Checkout was canceled')).toHaveCount(0)
  await page.goto('/dashboard')
  await expect(page.getByRole('region', { name: 'Your plan' })).toContainText(
    'You are not subscribed yet.',
  )
  await page.goto('/dashboard/settings/billing')
  await expect(page.getByText('You do not have a subscription yet.')).toBeVisible()
  await expect(page.getByText('No payments yet.')).toBeVisible()
})

test('a signed-out visitor with an account signs in and lands on the checkout of the plan', async ({
  page,
}) => {
  const user = await newUser('stripe-signed-out')
  await page.goto('/pricing')
  await expect(page.getByRole('button', { name: /Pay by card/ })).toHaveCount(0)
  await page.getByRole('link', { name: 'Get started with Pro: Pay by card' }).click()
  await page.getByRole('main').getByRole('link', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(
    `${E2E.siteUrl}/sign-in?redirectTo=%2Fsubscribe%2Fpro%3Fprovider%3Dstripe`,
  )
  await fillSignIn(page, user.email)
  await expect(page).toHaveURL(stripeCheckoutUrl)
  await expect(page.getByRole('heading', { name: 'Subscribe to Pro' })).toBeVisible()
})
