import {
  detail,
  expect,
  planCard,
  polarCheckoutUrl,
  polarOrigin,
  polarPortalUrl,
  signedInUser,
  test,
  untilWebhookApplied,
} from './fixtures'
import { E2E } from './ports'

/** The Polar journey: checkout, success, plan and invoice, the portal's cancellation. */

const invoiceUrl = new RegExp(`^${polarOrigin}/invoices/[0-9a-f-]{36}$`)

test('subscribe to Pro with Polar, see plan and invoice, then cancel in the Polar portal', async ({
  page,
}) => {
  test.setTimeout(120_000)
  const user = await signedInUser(page, 'polar-journey')

  await page.goto('/pricing')
  await planCard(page, 'Pro')
    .getByRole('link', { name: 'Subscribe to Pro: Pay with Polar' })
    .click()

  await expect(page).toHaveURL(polarCheckoutUrl)
  await expect(page.getByRole('heading', { name: 'Subscribe to Pro' })).toBeVisible()
  await expect(page.getByLabel('Email')).toHaveValue(user.email)
  await page.getByLabel('Cardholder name').fill('Ada Lovelace')
  await page.getByRole('button', { name: 'Pay now' }).click()

  await expect(page).toHaveURL(new RegExp(`^${E2E.siteUrl}/success\\?checkout_id=[0-9a-f-]{36}$`))
  await expect(page.getByRole('heading', { level: 1, name: 'Payment successful' })).toBeVisible()
  await expect(page.getByText('Pro plan: $29.00 per month')).toBeVisible()
  await expect(page.getByText(`Your receipt is on its way to ${user.email}`)).toBeVisible()

  const plan = page.getByRole('region', { name: 'Your plan' })
  await untilWebhookApplied(page, '/dashboard', (soon) =>
    soon(plan.getByText('Pro', { exact: true })).toBeVisible(),
  )
  await expect(plan).toContainText('Status: Active')

  // The payment is recorded at once; its invoice link once Polar has generated the invoice.
  const subscription = page.getByRole('region', { name: 'Current subscription' })
  const payments = page.getByRole('region', { name: 'Payment history' })
  await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
    soon(payments.getByRole('link', { name: 'View invoice' })).toBeVisible(),
  )
  await expect(subscription).toContainText('Pro')
  await expect(subscription).toContainText('Polar')
  await expect(payments.getByRole('row')).toHaveCount(2)
  const payment = payments.getByRole('row').nth(1)
  for (const text of ['Pro payment', '$29.00', 'Paid']) await expect(payment).toContainText(text)
  await expect(payment.getByRole('link', { name: 'View invoice' })).toHaveAttribute(
    'href',
    invoiceUrl,
  )
  await expect(subscription).not.toContainText('Scheduled to cancel')
  // No card named: Polar's webhooks carry none.
  await expect(detail(subscription, 'Next payment')).toHaveText(/^\$29\.00 on \w+ \d+, \d{4}$/)

  await page.getByRole('button', { name: 'Manage billing' }).click()
  await expect(page).toHaveURL(polarPortalUrl)
  await expect(page.getByRole('heading', { name: 'Customer portal' })).toBeVisible()
  await expect(page.getByText(`Signed in as ${user.email}`)).toBeVisible()
  const portalSubscription = page.getByRole('region', { name: 'Pro subscription' })
  await portalSubscription.getByRole('button', { name: 'Cancel subscription' }).click()
  await expect(portalSubscription).toContainText('Cancels on')
  await expect(
    portalSubscription.getByRole('button', { name: 'Resume subscription' }),
  ).toBeVisible()
  await page.getByRole('link', { name: 'Return to site' }).click()

  await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing`)
  await untilWebhookApplied(page, '/dashboard/settings/billing', async (soon) => {
    await soon(
      subscription.getByText(/Scheduled to cancel on [A-Z][a-z]+ \d{1,2}, \d{4}/),
    ).toBeVisible()
  })
  await expect(subscription).toContainText('StatusCanceling · ends')
})
