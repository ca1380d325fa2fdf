import type { Download } from '@playwright/test'

import { noticeByKey } from '../../app/lib/pages/notices'
import { mailSubject } from '../integration/mail-support'
import { daysFromNow, seedPayments, seedSubscription, shownDate } from './billing-seed'
import {
  expect,
  fillSignIn,
  inboxOf,
  newUser,
  otherDevice,
  PHONE,
  planCard,
  signedInUser,
  signIn,
  subscribe,
  test,
  untilWebhookApplied,
} from './fixtures'
import { E2E } from './ports'

/** The subscriber's own choices at phone width, JavaScript off. */

/** Waits for the one mail whose subject starts so to the address, in the local inbox. */
async function onlyMailTo(email: string, subject: string) {
  await expect(async () => {
    const mails = (await inboxOf(email)).filter((mail) => mail.subject.startsWith(subject))
    expect(mails).toHaveLength(1)
  }).toPass({ intervals: [250, 500, 1000], timeout: 20_000 })
}

/** A downloaded CSV's lines. */
async function csvLines(download: Download) {
  const csv = await (await download.createReadStream()).toArray()
  return Buffer.concat(csv).toString('utf8').trim().split('\r\n')
}

test.describe('phone width, JavaScript off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  for (const provider of ['stripe', 'polar'] as const) {
    test(`a ${provider} subscriber cancels at the period end, then resumes`, async ({ page }) => {
      test.setTimeout(120_000)
      const user = await signedInUser(page, `cancel-${provider}`)
      await subscribe(page, provider)

      const subscription = page.getByRole('region', { name: 'Current subscription' })
      const cancel = subscription.getByRole('link', { name: 'Cancel subscription' })
      await untilWebhookApplied(page, '/dashboard/settings/billing', (soon) =>
        soon(cancel).toBeVisible(),
      )
      await expect(subscription).toContainText(
        provider === 'stripe' ? 'PaymentBy card' : 'PaymentWith Polar',
      )
      // One primary action per state; Cancel is destructive, and apart from it.
      const primary = subscription.locator('.bg-brand-600')
      await expect(primary).toHaveText('Manage billing')
      await expect(subscription).toContainText('StatusActive')
      await expect(cancel).toHaveClass(/text-red-700/)
      await expect(cancel.locator('xpath=..')).toHaveClass(/border-t/)
      await cancel.click()

      // The confirmation says until when the plan stays; nothing changes before the button.
      await expect(page).toHaveURL(/\/dashboard\/settings\/billing\?cancel$/)
      const said = await subscription.getByText(/^Cancel Pro\? You keep it until /).textContent()
      const endsOn = /until (.+?) and are not charged again/.exec(said!)![1]
      await expect(subscription).toContainText(`Next payment$29.00 on ${endsOn}`)
      await expect(page.getByRole('link', { name: 'Keep my plan' })).toBeVisible()
      await page.getByRole('button', { name: 'Cancel at period end' }).click()

      await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing`)
      await expect(subscription.getByRole('status')).toHaveText(
        `Scheduled to cancel on ${endsOn}. You keep Pro until then; to keep it after that, choose Resume subscription below.`,
      )
      await expect(cancel).toHaveCount(0)
      await expect(subscription).toContainText(`StatusCanceling · ends ${endsOn}`)
      await expect(subscription).toContainText('Next payment—')
      await expect(primary).toHaveText('Resume subscription')
      await onlyMailTo(user.email, mailSubject('subscription_canceled', { plan_name: 'Pro' }))

      await page.goto('/pricing')
      await expect(planCard(page, 'Pro')).toContainText(`Current plan · ends ${endsOn}`)
      await page.goto('/dashboard/settings/billing')

      await subscription.getByRole('button', { name: 'Resume subscription' }).click()
      await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard/settings/billing?notice=plan-resumed`)
      await expect(page.getByRole('status').first()).toHaveText(noticeByKey('plan-resumed').text)
      await expect(subscription).not.toContainText('Scheduled to cancel')
      await expect(subscription).toContainText('StatusActive')
      await onlyMailTo(user.email, mailSubject('subscription_resumed', { plan_name: 'Pro' }))
      // The provider's own events agree: reloaded later, it is still renewing.
      await page.waitForTimeout(1000)
      await page.reload()
      await expect(cancel).toBeVisible()
      await expect(subscription).not.toContainText('Scheduled to cancel')
    })
  }

  test('deleting an account with a live plan offers canceling at the period end and the history as CSV', async ({
    page,
  }) => {
    const user = await newUser('delete-offer')
    const other = await newUser('delete-offer-other')
    const periodEnd = daysFromNow(20)
    await seedSubscription(user.id, { current_period_end: periodEnd })
    const payment = { amount: 2900, description: 'Pro payment', created_at: daysFromNow(-10) }
    await seedPayments(user.id, [
      { ...payment, status: 'succeeded', invoice_url: 'https://invoice.stripe.com/i/seeded' },
      { ...payment, status: 'failed', created_at: daysFromNow(-40) },
    ])
    await seedPayments(other.id, [{ amount: 900, created_at: daysFromNow(-1) }])
    await signIn(page, user.email)

    await page.goto('/dashboard/settings/account')
    const section = page.getByRole('region', { name: 'Delete account' })
    const keep = section.getByRole('link', {
      name: `Cancel at period end and keep access until ${shownDate(periodEnd)}`,
    })
    await expect(keep).toBeVisible()
    await expect(section).toContainText('the payment provider keeps its own record')

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      section.getByRole('link', { name: 'Download your payment history as CSV' }).click(),
    ])
    const lines = await csvLines(download)
    expect(lines.slice(1).map((line) => line.split(',')[2])).toEqual(['29.00', '29.00'])

    await keep.click()
    await expect(page).toHaveURL(/\/dashboard\/settings\/billing\?cancel$/)
    await expect(page.getByRole('main')).toContainText(
      `Cancel Pro? You keep it until ${shownDate(periodEnd)} and are not charged again`,
    )
    await expect(page.getByRole('button', { name: 'Cancel at period end' })).toBeVisible()
    await page.goto('/dashboard/settings/billing')
    await expect(
      page
        .getByRole('region', { name: 'Payment history' })
        .getByRole('link', { name: 'Download the history as CSV' }),
    ).toHaveAttribute('href', '/dashboard/settings/billing/payments.csv')
  })
})

for (const javaScriptEnabled of [true, false]) {
  test(`the payments CSV from a signed-out link downloads after signing in, for a spreadsheet (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async ({
    browser,
  }) => {
    const page = await otherDevice(browser, { javaScriptEnabled })
    const user = await newUser('csv')
    const paidAt = daysFromNow(-10)
    await seedPayments(user.id, [
      {
        amount: 2900,
        amount_refunded: 500,
        description: 'Pro payment',
        invoice_url: 'https://invoice.stripe.com/i/seeded',
        created_at: paidAt,
      },
      { provider: 'polar', amount: 90000, currency: 'jpy', created_at: daysFromNow(-40) },
    ])
    await page.goto('/dashboard/settings/billing/payments.csv')
    await expect(page).toHaveURL(/\/sign-in\?redirectTo=/)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      fillSignIn(page, user.email),
    ])
    const today = new Date().toISOString().slice(0, 10)
    expect(download.suggestedFilename()).toBe(`payments-${today}.csv`)
    const lines = await csvLines(download)
    expect(lines[0]).toBe(
      'Date,Description,Amount,Currency,Refunded,Status,Invoice number,Invoice URL',
    )
    expect(lines[1]).toMatch(
      new RegExp(
        `^${paidAt.slice(0, 10)},"Pro payment",29\\.00,USD,5\\.00,"Partially refunded","in_seeded_[\\w-]+","https://invoice\\.stripe\\.com/i/seeded"$`,
      ),
    )
    expect(lines[2]).toMatch(/^\d{4}-\d{2}-\d{2},"Payment",90000,JPY,0,"Paid","[\w-]+",""$/)
    await page.context().close()
  })
}
