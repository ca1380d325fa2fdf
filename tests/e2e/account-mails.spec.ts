import { mailSubject, receiptOf } from '../integration/mail-support'
import {
  expect,
  inboxOf,
  mailTo,
  PASSWORD,
  signedInUser,
  subscribe,
  test,
  untilWebhookApplied,
} from './fixtures'

/**
 * The mails around an account's end, in the local inbox: a subscriber with a live Stripe
 * plan deletes the account; Stripe's cancellation webhooks follow, and the one mail that
 * arrives says the account was deleted and nothing more will be charged.
 */

test('deleting an account with a live plan sends one "account deleted" mail and nothing else', async ({
  page,
}, testInfo) => {
  test.setTimeout(90_000)
  const user = await signedInUser(page, 'deleted-mails')
  await subscribe(page)
  // The plan is live (its receipt has arrived) before the account goes.
  await mailTo(user.email, mailSubject('payment_receipt', {}, receiptOf(2900)))
  await untilWebhookApplied(page, '/dashboard', async () => {
    await expect(page.getByRole('region', { name: 'Your plan' })).toContainText('Pro', {
      timeout: 500,
    })
  })

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
