import { mailSubject } from '../integration/mail-support'
import { emulatorStripe, triggerAtPolar } from './billing-seed'
import {
  adminClient,
  expect,
  PHONE,
  planCard,
  signedInUser,
  stripePortalUrl,
  subscribe,
  test,
  untilWebhookApplied,
  waitForMail,
} from './fixtures'
import { E2E } from './ports'

/** Plan changes and one figure for each sum wherever it is shown; phone width, JavaScript off. */

/** "−$9.00" → -900. */
const cents = (text: string) =>
  Math.round(Number(text.replace(/[^\d.]/g, '')) * 100) * (text.startsWith('−') ? -1 : 1)

/** The user's one payment row, once its webhook has recorded it. */
async function paymentOf(userId: string) {
  let row: Record<string, string> | undefined
  await expect(async () => {
    const { data } = await adminClient().from('payment_history').select('*').eq('user_id', userId)
    expect(data).toHaveLength(1)
    row = data![0] as Record<string, string>
  }).toPass({ timeout: 20_000 })
  return row!
}

test.describe('phone width, JavaScript off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  test('the plan change page adds up, and its mails quote its next invoice', async ({ page }) => {
    test.setTimeout(120_000)
    const user = await signedInUser(page, 'money-change')
    await subscribe(page, 'polar', 'Starter')

    // Each provider call counts (five a minute per account): the page is opened once.
    const change = page.getByRole('link', { name: 'Change to Pro' })
    await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
      soon(change).toBeVisible(),
    )
    await change.click()
    const cost = page.getByRole('region', { name: 'What it will cost' })
    await expect(cost.getByRole('term')).toHaveText([
      'Credit for the unused part of Starter',
      'Pro for the rest of this period',
      /^Pro from /,
      /^Next invoice on /,
    ])
    const values = (await cost.getByRole('definition').allTextContents()).map(cents)
    expect(values.slice(0, -1).reduce((sum, value) => sum + value, 0)).toBe(values.at(-1))
    const total = (await cost.getByRole('definition').last().textContent())!
    const date = (await cost.getByRole('term').last().textContent())!.slice(16, -1)
    const nextInvoice = `Your next invoice: ${total} on ${date}`

    await page.getByRole('button', { name: 'Confirm change to Pro' }).click()
    await expect(page.getByText('Your plan is now Pro.')).toBeVisible()
    const nextPayment = page
      .getByRole('term')
      .filter({ hasText: 'Next payment' })
      .locator('xpath=following-sibling::dd')
    await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
      soon(nextPayment).toHaveText(`${total} on ${date}`),
    )
    const changed = await waitForMail(user.email, 'smtp', {
      subject: mailSubject('plan_changed', { plan_name: 'Pro' }),
    })
    expect(changed.text).toContain(nextInvoice)

    await page.getByRole('link', { name: 'Cancel subscription' }).click()
    await page.getByRole('button', { name: 'Cancel at period end' }).click()
    await page.getByRole('button', { name: 'Resume subscription' }).click()
    const resumed = await waitForMail(user.email, 'smtp', {
      subject: mailSubject('subscription_resumed', { plan_name: 'Pro' }),
    })
    expect(resumed.text).toContain(`${nextInvoice}.`)
    await expect(nextPayment).toHaveText(`${total} on ${date}`)
  })

  test('a Stripe subscriber changes plan from pricing through the portal’s confirmation', async ({
    page,
  }) => {
    test.setTimeout(90_000)
    await signedInUser(page, 'money-stripe-change')
    await subscribe(page, 'stripe', 'Starter')
    const change = page.getByRole('link', { name: 'Change to Pro' })
    await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
      soon(change).toBeVisible(),
    )
    await page.goto('/pricing')
    await planCard(page, 'Pro').getByRole('link', { name: 'Change to Pro' }).click()
    await expect(page).toHaveURL(stripePortalUrl)
    await expect(page.getByText('New plan: Pro ($29.00 per month)')).toBeVisible()
    await page.getByRole('button', { name: 'Confirm' }).click()
    await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing?changed=pro`)
    await expect(page.getByText('Your plan is now Pro.')).toBeVisible()
    const subscription = page.getByRole('region', { name: 'Current subscription' })
    await expect(async () => {
      await page.reload()
      await expect(subscription).toContainText('Pro · $29.00 / month', { timeout: 500 })
    }).toPass({ timeout: 20_000 })
  })

  test('a refund shows on its payment for both providers, and its mail names its own amount', async ({
    page,
  }) => {
    test.setTimeout(150_000)
    for (const provider of ['stripe', 'polar'] as const) {
      const user = await signedInUser(page, `money-refund-${provider}`)
      await subscribe(page, provider, 'Pro')
      const payment = await paymentOf(user.id)
      // Two partial refunds, $4.00 then $5.00, as the provider's dashboard makes them.
      for (const amount of [400, 500]) {
        if (provider === 'stripe') {
          await emulatorStripe().refunds.create({
            payment_intent: payment.provider_charge_id,
            amount,
          })
        } else {
          await triggerAtPolar({ type: 'refund', order_id: payment.provider_payment_id, amount })
        }
      }
      const mail = await waitForMail(user.email, 'smtp', {
        subject: mailSubject('payment_refunded', { amount: 500, currency: 'usd' }),
      })
      expect(mail.text).toContain(
        'We refunded $5.00 of your $29.00 Pro payment; $9.00 of it is refunded in all.',
      )

      await page.goto('/dashboard/settings/billing')
      const shown = page.getByRole('region', { name: 'Payment history' }).getByRole('listitem')
      // Polar's refund also keeps the contract's negative row, with its total.
      await expect(shown).toHaveCount(provider === 'polar' ? 2 : 1)
      const refundRow = shown.filter({ hasText: 'Pro refund' })
      await expect(refundRow).toHaveCount(provider === 'polar' ? 1 : 0)
      await expect(shown.last()).toContainText('Pro payment')
      await expect(shown.last()).toContainText('$29.00')
      await expect(shown.last()).toContainText('Partially refunded ($9.00)')
      await page.context().clearCookies()
    }
  })
})
