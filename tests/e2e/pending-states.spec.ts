import type { Page } from '@playwright/test'

import { createStripeCustomer, seedSubscription } from './billing-seed'
import { expect, signedInUser, test } from './fixtures'

/** Every Subscribe and Manage button says it is on its way and refuses a second press. */

/** Holds back requests to `url` (of one method) for a few seconds. */
async function slowDown(page: Page, url: string, method: 'GET' | 'POST') {
  await page.route(url, async (route) => {
    if (route.request().method() === method) await new Promise((done) => setTimeout(done, 3000))
    await route.continue().catch(() => {})
  })
}

/** Reports pending labels to `window.reportPending`: a locator cannot read a page being left. */
async function reportPendingLabels(page: Page) {
  await page.evaluate(() => {
    const report = (window as unknown as { reportPending: (label: string) => void }).reportPending
    new MutationObserver(() => {
      for (const element of document.querySelectorAll('main button, main a')) {
        if (element.textContent === 'Opening checkout…') {
          const state = element.getAttribute('aria-disabled') ?? element.getAttribute('aria-busy')
          report(`${element.tagName.toLowerCase()} ${element.textContent} ${state}`)
        }
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
}

test('pricing: both Subscribe buttons show "Opening checkout…" until the checkout opens', async ({
  page,
}) => {
  await signedInUser(page, 'pending-pricing')
  await slowDown(page, '**/api/checkout_sessions', 'POST')
  await slowDown(page, '**/api/checkout?**', 'GET')
  const seen: string[] = []
  await page.exposeFunction('reportPending', (label: string) => seen.push(label))
  const pro = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Pro' }) })
  for (const [control, expected] of [
    [
      pro.getByRole('button', { name: 'Subscribe to Pro: Pay by card' }),
      'button Opening checkout… true',
    ],
    [
      pro.getByRole('link', { name: 'Subscribe to Pro: Pay with Polar' }),
      'a Opening checkout… true',
    ],
  ] as const) {
    await page.goto('/pricing')
    await page.waitForLoadState('networkidle')
    seen.length = 0
    await reportPendingLabels(page)
    await control.click()
    await expect(page).toHaveURL(/\/checkout\//)
    expect(seen).toContain(expected)
  }
})

test('billing: "Manage billing" and "Update payment method" show "Opening billing portal…"', async ({
  page,
}) => {
  const user = await signedInUser(page, 'pending-billing')
  await seedSubscription(user.id, {
    provider: 'stripe',
    status: 'past_due',
    stripe_customer_id: await createStripeCustomer(user.email),
  })
  await slowDown(page, '**/dashboard/settings/billing*', 'POST')
  for (const [path, button] of [
    ['/dashboard/settings/billing', 'Manage billing'],
    ['/dashboard/settings/billing', 'Update payment method'],
    ['/dashboard', 'Update payment method'],
  ] as const) {
    await page.goto(path)
    await page.waitForLoadState('networkidle')
    await page.getByRole('button', { name: button }).click()
    // Both buttons of the billing page open the same portal: both say so.
    const pending = page.getByRole('button', { name: 'Opening billing portal…' }).first()
    await expect(pending).toBeVisible()
    await expect(pending).toBeDisabled()
  }
})
