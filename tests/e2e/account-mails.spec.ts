import type { Page } from '@playwright/test'

import { mailSubject, receiptOf } from '../integration/mail-support'
import { createUser, deleteUser, expect, PASSWORD, signIn, test, uniqueEmail } from './fixtures'
import { E2E } from './ports'

/**
 * The mails around an account's end, in the local inbox: a subscriber with a live Stripe
 * plan deletes the account; Stripe's cancellation webhooks follow, and the one mail that
 * arrives says the account was deleted and nothing more will be charged.
 */

const users: string[] = []
test.afterEach(async () => {
  // Deleted by the test itself when it passes; a failed run leaves the user to clean up.
  await Promise.all(users.splice(0).map((id) => deleteUser(id).catch(() => {})))
})

interface InboxMail {
  to: string
  subject: string
  text: string
}

async function inboxOf(email: string) {
  const response = await fetch(
    `${E2E.supabaseUrl}/_inbox/messages.json?to=${encodeURIComponent(email)}`,
  )
  return ((await response.json()) as { messages: InboxMail[] }).messages
}

async function mailTo(email: string, subject: string) {
  let found: InboxMail | undefined
  await expect(async () => {
    found = (await inboxOf(email)).find((mail) => mail.subject.startsWith(subject))
    expect(found, `a mail "${subject}" to ${email}`).toBeDefined()
  }).toPass({ intervals: [250, 500, 1000], timeout: 20_000 })
  return found!
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

test('deleting an account with a live plan sends one "account deleted" mail and nothing else', async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000)
  const user = await createUser(uniqueEmail('deleted-mails'))
  users.push(user.id)
  await signIn(page, user.email)
  await subscribeToPro(page)
  // The plan is live (its receipt has arrived) before the account goes.
  await mailTo(user.email, mailSubject('payment_receipt', {}, receiptOf(2900)))
  await expect(async () => {
    await page.goto('/dashboard')
    await expect(page.getByRole('region', { name: 'Your plan' })).toContainText('Pro', {
      timeout: 500,
    })
  }).toPass({ intervals: [250, 500, 1000], timeout: 20_000 })

  await page.goto('/dashboard/settings/account')
  const form = page.locator('form#delete-account')
  await form.getByRole('button', { name: 'Delete account' }).click()
  await form.getByRole('textbox', { name: 'Type DELETE to confirm' }).fill('DELETE')
  await form.getByLabel('Current password').fill(PASSWORD)
  await form.getByRole('button', { name: 'Delete account' }).click()
  await expect(page.getByRole('heading', { name: 'Your account has been deleted' })).toBeVisible()

  const deleted = await mailTo(user.email, mailSubject('account_deleted'))
  expect(deleted.text).toContain(
    'Your Pro subscription was canceled with it: there will be no further charges.',
  )
  expect(deleted.text).not.toContain('/dashboard')
  await testInfo.attach('the account-deleted mail', {
    body: deleted.text,
    contentType: 'text/plain',
  })
  // Stripe's cancellation webhooks have had time to arrive: no "ended" or "will end" mail.
  await page.waitForTimeout(3_000)
  const subjects = (await inboxOf(user.email)).map((mail) => mail.subject)
  expect(subjects.filter((subject) => /has ended|will end/.test(subject))).toEqual([])
  expect(subjects.filter((subject) => subject.includes('account was deleted'))).toHaveLength(1)
})
