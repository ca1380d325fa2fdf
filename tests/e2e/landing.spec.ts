import type { Page } from '@playwright/test'

import { expect, signedInUser, test } from './fixtures'

/** The errors the page logs or throws, from now on. */
function errorsOf(page: Page) {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return errors
}

test('the landing page speaks to subscribers and logs no console errors', async ({ page }) => {
  const errors = errorsOf(page)
  await page.goto('/')
  await expect(
    page.getByRole('heading', {
      level: 1,
      name: 'Your projects, analytics and team, in one simple plan',
    }),
  ).toBeVisible()
  await expect(page.locator('main')).not.toContainText(/webhook|database|ledger|row-level/i)
  await expect(page.getByRole('link', { name: 'See plans and pricing' })).toBeVisible()
  const nav = page.getByRole('navigation', { name: 'Main' })
  // At desktop width the links show without a menu.
  for (const name of ['Pricing', 'Contact', 'Sign in'])
    await expect(nav.getByRole('link', { name })).toBeVisible()
  await expect(page.locator('header summary')).toBeHidden()
  await expect(page.getByRole('contentinfo')).toContainText('Subscribely')
  await page.waitForLoadState('networkidle')
  expect(errors).toEqual([])
})

// The anonymous page cache (page-cache.server.ts) must still hydrate, and never serve a member.
test('pages answered from the anonymous page cache hydrate under a fresh nonce; a signed-in visitor gets their own page', async ({
  page,
}) => {
  const errors = errorsOf(page)
  await page.goto('/pricing')
  await page.goto('/pricing')
  await expect
    .poll(() => page.evaluate(() => '__remixRouter' in window && '__remixContext' in window))
    .toBe(true)
  await page.waitForLoadState('networkidle')
  expect(errors).toEqual([])

  await signedInUser(page, 'page-cache')
  await page.goto('/pricing')
  await expect(page.getByRole('navigation', { name: 'Main' })).not.toContainText('Sign in')
  await expect(page.getByRole('button', { name: /Sign out/ }).first()).toBeVisible()
})
