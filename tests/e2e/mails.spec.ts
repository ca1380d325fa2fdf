import type { Page, TestInfo } from '@playwright/test'
import { createClient } from '@supabase/supabase-js'

import { mailSubject, receiptOf } from '../integration/mail-support'
import { LOCAL_SERVICE_ROLE_KEY } from '../local-stack/supabase/keys'
import {
  createUser,
  deleteUser,
  expect,
  PASSWORD,
  signIn,
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

const users: string[] = []
test.afterEach(async () => {
  await Promise.all(users.splice(0).map((id) => deleteUser(id)))
})

interface InboxMail {
  to: string
  subject: string
  kind: string
  text: string
  html: string
  link: string | null
}

/** Waits for a mail with this subject (a prefix) to an address; returns it. */
async function mailTo(email: string, subject: string | RegExp) {
  let found: InboxMail | undefined
  await expect(async () => {
    const response = await fetch(
      `${E2E.supabaseUrl}/_inbox/messages.json?to=${encodeURIComponent(email)}`,
    )
    const { messages } = (await response.json()) as { messages: InboxMail[] }
    found = messages.find((mail) =>
      typeof subject === 'string' ? mail.subject.startsWith(subject) : subject.test(mail.subject),
    )
    expect(found, `a mail "${subject}" to ${email}`).toBeDefined()
  }).toPass({ intervals: [250, 500, 1000], timeout: 20_000 })
  return found!
}

/** Screenshots at desktop and phone width, into the report. */
async function snapBothWidths(page: Page, testInfo: TestInfo, name: string) {
  for (const [width, size] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(size)
    await testInfo.attach(`${name}, ${width}`, {
      body: await page.screenshot({ fullPage: true }),
      contentType: 'image/png',
    })
  }
}

async function subscriptionIdOf(userId: string) {
  const admin = createClient(E2E.supabaseUrl, LOCAL_SERVICE_ROLE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })
  await expect(async () => {
    const { data } = await admin
      .from('user_subscriptions')
      .select('stripe_subscription_id')
      .eq('user_id', userId)
      .maybeSingle<{ stripe_subscription_id: string | null }>()
    expect(data?.stripe_subscription_id).toBeTruthy()
  }).toPass({ timeout: 20_000 })
  const { data } = await admin
    .from('user_subscriptions')
    .select('stripe_subscription_id')
    .eq('user_id', userId)
    .single<{ stripe_subscription_id: string }>()
  return data!.stripe_subscription_id
}

async function stripeEmulator(path: string, body: object) {
  const response = await fetch(`${E2E.stripeUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(200)
}

async function subscribeToPro(page: Page) {
  await page.goto('/pricing')
  const pro = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Pro' }) })
  await pro.getByRole('button', { name: 'Subscribe to Pro: Pay by card' }).click()
  await expect(page).toHaveURL(new RegExp(`^${E2E.stripeUrl}/checkout/cs_test_\\w+$`))
  await page.getByLabel('Card number').fill('4242 4242 4242 4242')
  await page.getByLabel('Cardholder name').fill('Ada Lovelace')
  await page.getByRole('button', { name: 'Subscribe', exact: true }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Payment successful' })).toBeVisible()
}

test('each notification mail arrives in the local inbox, with its links', async ({
  page,
}, testInfo) => {
  test.setTimeout(150_000)
  const user = await createUser(uniqueEmail('mails'))
  users.push(user.id)
  await signIn(page, user.email)

  // A payment receipt, with its invoice and billing history.
  await subscribeToPro(page)
  const receipt = await mailTo(user.email, mailSubject('payment_receipt', {}, receiptOf(2900)))
  expect(receipt.kind).toBe('smtp')
  expect(receipt.text).toContain(`Billing history: ${E2E.siteUrl}/dashboard/settings/billing`)
  expect(receipt.text).toMatch(new RegExp(`View your invoice: ${E2E.stripeUrl}/invoices/in_\\w+`))

  // The renewal fails (Stripe's invoice.payment_failed): the way to fix it.
  const subscriptionId = await subscriptionIdOf(user.id)
  await stripeEmulator(`/_emulator/subscriptions/${subscriptionId}/renew`, { fail: true })
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
  await stripeEmulator(`/_emulator/subscriptions/${subscriptionId}/renew`, {})
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
  await snapBothWidths(page, testInfo, 'local inbox with the notification mails')
  await page.setViewportSize({ width: 1280, height: 800 })
  // And its links work: the failed payment's leads to billing (sign-in first, signed out).
  const failedMail = page
    .getByRole('article')
    .filter({ has: page.getByRole('heading', { name: failed.subject }) })
  await failedMail.getByRole('link', { name: 'Update your payment method' }).click()
  await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fdashboard%2Fsettings%2Fbilling/)
})

test('a new password from a reset link is a password change too: the notice arrives', async ({
  page,
}) => {
  const user = await createUser(uniqueEmail('mails-reset'))
  users.push(user.id)
  await page.goto('/forgot-password')
  await page.getByRole('textbox', { name: 'Email' }).fill(user.email)
  await page.getByRole('button', { name: 'Send reset link' }).click()
  const recovery = await waitForMail(user.email, 'recovery')
  await page.goto(recovery.link!)
  await page.getByLabel('New password', { exact: true }).fill('reset-passphrase-99')
  await page.getByLabel('Repeat new password').fill('reset-passphrase-99')
  await page.getByRole('button', { name: 'Save new password' }).click()
  await expect(page).toHaveURL(/\/dashboard\?notice=password-updated$/)
  const notice = await mailTo(user.email, mailSubject('password_changed'))
  expect(notice.text).toContain(`Reset your password: ${E2E.siteUrl}/forgot-password`)
})

test('product updates stay off until the user opts in', async ({ page }, testInfo) => {
  const user = await createUser(uniqueEmail('mails-optin'))
  users.push(user.id)
  await signIn(page, user.email)
  await page.goto('/dashboard/settings/notifications')
  await expect(page.getByRole('checkbox', { name: 'Product updates' })).not.toBeChecked()
  await expect(page.getByRole('checkbox', { name: 'Billing emails' })).toBeChecked()
  await expect(page.getByRole('checkbox', { name: 'Security alerts' })).toBeChecked()
  await snapBothWidths(page, testInfo, 'notifications settings')
})
