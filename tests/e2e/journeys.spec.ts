import type { Page, TestInfo } from '@playwright/test'

import { noticeByKey } from '../../app/lib/pages/notices'
import {
  deleteAfterTest,
  expect,
  fillSignUp,
  newUser,
  PASSWORD,
  signIn,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'
import { E2E } from './ports'

/**
 * A newcomer's whole way, as few clicks as it can be: the plan chosen on the pricing page is
 * kept through sign-up and the confirmation mail, and the confirmation lands on that plan's
 * checkout. Screenshots of each step at the test's viewport go in the report.
 */

async function snap(page: Page, testInfo: TestInfo, name: string) {
  await testInfo.attach(name, {
    body: await page.screenshot({ fullPage: true }),
    contentType: 'image/png',
  })
}

for (const viewport of [
  { name: 'desktop', size: { width: 1280, height: 800 } },
  { name: 'phone', size: { width: 390, height: 844 } },
]) {
  test(`pricing → sign-up → confirmation mail → checkout of the chosen plan (${viewport.name})`, async ({
    page,
  }, testInfo) => {
    test.setTimeout(90_000)
    await page.setViewportSize(viewport.size)
    const email = uniqueEmail(`journey-${viewport.name}`)
    deleteAfterTest(email)

    await page.goto('/pricing')
    const pro = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Pro' }) })
    // A way to pay per provider for a newcomer, each through sign-up.
    await expect(pro.getByRole('link', { name: 'Get started with Pro: Pay by card' })).toHaveCount(
      1,
    )
    await expect(pro.getByRole('button')).toHaveCount(0)
    await snap(page, testInfo, `pricing, signed out (${viewport.name})`)
    await pro.getByRole('link', { name: 'Get started with Pro: Pay by card' }).click() // 1

    await expect(page).toHaveURL(/\/sign-up\?redirectTo=%2Fsubscribe%2Fpro%3Fprovider%3Dstripe$/)
    await fillSignUp(page, email) // 2
    await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()

    const mail = await waitForMail(email, 'signup')
    await page.goto(mail.link!) // 3: the link in the mail
    const confirm = page.getByRole('button', { name: /confirm/i })
    if (await confirm.isVisible().catch(() => false)) await confirm.click()

    await expect(page).toHaveURL(new RegExp(`^${E2E.stripeUrl}/checkout/cs_test_\\w+$`))
    await expect(page.getByRole('heading', { name: 'Subscribe to Pro' })).toBeVisible()
    await expect(page.getByLabel('Email')).toHaveValue(email)
    await page.getByLabel('Card number').fill('4242 4242 4242 4242')
    await page.getByLabel('Cardholder name').fill('Ada Lovelace')
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click() // 4
    await expect(page.getByRole('heading', { level: 1, name: 'Payment successful' })).toBeVisible()
    // The plan, the amount and where the receipt went.
    await expect(page.getByText('Pro plan: $29.00 per month')).toBeVisible()
    await expect(page.getByText(`Your receipt is on its way to ${email}`)).toBeVisible()
    await snap(page, testInfo, `success page (${viewport.name})`)

    // The way on was followed once: the dashboard is the dashboard again.
    await expect(async () => {
      await page.goto('/dashboard')
      await expect(page.getByRole('region', { name: 'Your plan' })).toContainText('Pro', {
        timeout: 500,
      })
    }).toPass({ intervals: [250, 500, 1000], timeout: 20_000 })
    await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard`)
    await snap(page, testInfo, `dashboard after paying (${viewport.name})`)

    await page.goto('/pricing')
    await expect(pro.getByText('Current plan')).toBeVisible()
    await expect(pro.getByRole('link', { name: 'Manage your plan' })).toBeVisible()
    const starter = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Starter' }) })
    await expect(starter.getByRole('link', { name: 'Change to Starter' })).toBeVisible()
    await snap(page, testInfo, `pricing, subscriber (${viewport.name})`)
  })
}

test('an unknown plan and a provider failure bring a browser back to pricing with a message', async ({
  page,
}) => {
  const email = uniqueEmail('journey-errors')
  deleteAfterTest(email)
  await page.goto('/sign-up')
  await fillSignUp(page, email)
  const mail = await waitForMail(email, 'signup')
  await page.goto(mail.link!)
  const confirm = page.getByRole('button', { name: /confirm/i })
  if (await confirm.isVisible().catch(() => false)) await confirm.click()
  await expect(page).toHaveURL(/\/dashboard/)

  await page.goto('/subscribe/enterprise')
  await expect(page).toHaveURL(`${E2E.siteUrl}/pricing?notice=unknown-plan`)
  await expect(page.getByRole('alert')).toContainText('That plan does not exist')

  await fetch(`${E2E.stripeUrl}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ path: '/v1/checkout/sessions', method: 'POST', status: 500, count: 3 }),
  })
  try {
    await page.goto('/subscribe/pro')
    await expect(page).toHaveURL(`${E2E.siteUrl}/pricing?notice=checkout-failed`)
    await expect(page.getByRole('alert')).toContainText('You have not been charged')
  } finally {
    await fetch(`${E2E.stripeUrl}/_emulator/faults`, { method: 'DELETE' })
  }
})

test('a signed-out visitor following a plan link is asked to sign in and comes back', async ({
  page,
}) => {
  await page.goto('/subscribe/pro')
  await expect(page).toHaveURL(
    `${E2E.siteUrl}/sign-in?redirectTo=%2Fsubscribe%2Fpro&notice=sign-in-to-continue`,
  )
  await expect(page.getByText(noticeByKey('sign-in-to-continue').text)).toBeVisible()
})

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false })

  test('a Subscribe form after the session ended leads to sign-in and back, never to JSON', async ({
    page,
    context,
  }) => {
    const user = await newUser('journey-expired')
    await signIn(page, user.email)
    await page.goto('/pricing')
    await context.clearCookies() // the session ends while the page is open
    await page.getByRole('button', { name: 'Subscribe to Pro: Pay by card' }).click()
    await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fpricing&notice=sign-in-to-continue$/)
    await expect(page.getByRole('status').first()).toContainText(
      'Sign in to continue where you left off.',
    )
    await expect(page.locator('body')).not.toContainText('"error"')
    const form = page.locator('form#sign-in')
    await form.getByLabel('Email').fill(user.email)
    await form.getByLabel('Password').fill(PASSWORD)
    await form.getByRole('button', { name: 'Sign in' }).click()
    await expect(page).toHaveURL(`${E2E.siteUrl}/pricing`)
  })
})
