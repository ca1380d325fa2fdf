import { mailSubject, receiptOf } from '../integration/mail-support'
import { renewAtStripe, stripeSubscriptionIdOf } from './billing-seed'
import {
  attachScreenshots,
  expect,
  mailTo,
  PASSWORD,
  signedInUser,
  subscribe,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'
import { E2E } from './ports'

const PRO = { plan_name: 'Pro' }

/**
 * The notification mails, each checked in the local inbox (the Supabase emulator's /_inbox,
 * fed by its SMTP listener): a receipt, a failed payment, the subscription canceled and then
 * ended, and the security notices (password changed, email changed to both addresses,
 * signed out everywhere). Each is caused the way a subscriber causes it: checkout, portal,
 * Stripe's own events, the Account settings page.
 */

test('each notification mail arrives in the local inbox, with its links', async ({
  page,
}, testInfo) => {
  test.setTimeout(150_000)
  const user = await signedInUser(page, 'mails')

  // A payment receipt, with its invoice and billing history.
  await subscribe(page)
  const receipt = await mailTo(user.email, mailSubject('payment_receipt', {}, receiptOf(2900)))
  expect(receipt.kind).toBe('smtp')
  expect(receipt.text).toContain(`Billing history: ${E2E.siteUrl}/dashboard/settings/billing`)
  expect(receipt.text).toMatch(new RegExp(`View your invoice: ${E2E.stripeUrl}/invoices/in_\\w+`))

  // The renewal fails (Stripe's invoice.payment_failed): the way to fix it.
  const subscriptionId = await stripeSubscriptionIdOf(user.id)
  await renewAtStripe(subscriptionId, { fail: true })
  const failed = await mailTo(user.email, mailSubject('payment_failed'))
  expect(failed.text).toContain(
    `Update your payment method: ${E2E.siteUrl}/dashboard/settings/billing`,
  )

  // Canceled at period end in the portal: "will end on …".
  await page.goto('/dashboard/settings/billing')
  await page.getByRole('button', { name: 'Manage billing' }).click()
  await page.getByRole('button', { name: 'Cancel at period end' }).click()
  await expect(
    page.getByText('Your subscription will be canceled at the end of the billing period.'),
  ).toBeVisible()
  const canceled = await mailTo(user.email, mailSubject('subscription_canceled', PRO))
  expect(canceled.text).toContain('You keep access until')

  // The period ends: the subscription has ended.
  await renewAtStripe(subscriptionId)
  const ended = await mailTo(user.email, mailSubject('subscription_ended', PRO))
  expect(ended.text).toContain(`Subscribe again: ${E2E.siteUrl}/pricing`)

  // Security: the password changed.
  await page.goto('/dashboard/settings/account')
  const passwordForm = page.locator('form#change-password')
  await passwordForm.getByLabel('Current password').fill(PASSWORD)
  await passwordForm.getByLabel('New password', { exact: true }).fill('another-password-42')
  await passwordForm.getByLabel('Repeat new password').fill('another-password-42')
  await passwordForm.getByRole('button', { name: 'Change password' }).click()
  await expect(passwordForm.getByRole('status')).toHaveText('Your password has been changed.')
  await mailTo(user.email, mailSubject('password_changed'))

  // Security: the email changed, once confirmed from both addresses; both are told.
  const newEmail = uniqueEmail('mails-new')
  const emailForm = page.locator('form#change-email')
  await emailForm.getByLabel('New email').fill(newEmail)
  await emailForm.getByLabel('Current password').fill('another-password-42')
  await emailForm.getByRole('button', { name: 'Change email' }).click()
  await expect(
    page.getByText('Your email changes once both links are opened').first(),
  ).toBeVisible()
  for (const address of [user.email, newEmail]) {
    const confirmation = await waitForMail(address, 'email_change')
    await page.goto(confirmation.link!)
  }
  const toOld = await mailTo(user.email, mailSubject('email_changed'))
  expect(toOld.text).toContain(`was changed from ${user.email} to ${newEmail}`)
  const toNew = await mailTo(newEmail, mailSubject('email_changed'))
  expect(toNew.text).toContain(`${newEmail} is now the sign-in email`)

  // Security: signed out everywhere (to the account's address, now the new one).
  await page.goto('/dashboard/settings/account')
  await page.getByText('Sign out of all sessions').click()
  await page.getByRole('button', { name: 'Yes, sign out everywhere' }).click()
  await expect(page).toHaveURL(/\/sign-in\?notice=signed-out-everywhere$/)
  await mailTo(newEmail, mailSubject('signed_out_everywhere'))

  // The inbox page shows each of them, as a developer sees it.
  await page.goto(`${E2E.supabaseUrl}/_inbox`)
  for (const subject of [
    receipt.subject,
    canceled.subject,
    failed.subject,
    ended.subject,
    mailSubject('password_changed'),
    mailSubject('email_changed'),
    mailSubject('signed_out_everywhere'),
  ]) {
    await expect(page.getByRole('heading', { name: subject }).first()).toBeVisible()
  }
  await attachScreenshots(page, testInfo, 'local inbox with the notification mails')
  // And its links work: the failed payment's leads to billing (sign-in first, signed out).
  const failedMail = page
    .getByRole('article')
    .filter({ has: page.getByRole('heading', { name: failed.subject }) })
  await failedMail.getByRole('link', { name: 'Update your payment method' }).click()
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fdashboard%2Fsettings%2Fbilling/)
})
