import type { ConsoleMessage } from '@playwright/test'

import { createUser, expect, signIn, test } from './fixtures'

test.describe('landing page', () => {
  test('renders with JavaScript on and logs no console errors', async ({ page }) => {
    const errors: string[] = []
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(error.message))
    await page.goto('/')
    await expect(
      page.getByRole('heading', {
        level: 1,
        name: 'Your projects, analytics and team, in one simple plan',
      }),
    ).toBeVisible()
    const nav = page.getByRole('navigation', { name: 'Main' })
    await expect(nav.getByRole('link', { name: 'Pricing' })).toBeVisible()
    await expect(nav.getByRole('link', { name: 'Contact' })).toBeVisible()
    await expect(nav.getByRole('link', { name: 'Sign in' })).toBeVisible()
    await expect(page.getByRole('contentinfo')).toContainText('Subscribely')
    await page.waitForLoadState('networkidle')
    expect(errors).toEqual([])
  })

  test.describe('with JavaScript off', () => {
    test.use({ javaScriptEnabled: false })
    test('renders the same content', async ({ page }) => {
      await page.goto('/')
      await expect(
        page.getByRole('heading', {
          level: 1,
          name: 'Your projects, analytics and team, in one simple plan',
        }),
      ).toBeVisible()
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Contact' })
        .click()
      await expect(page).toHaveURL(/\/contact$/)
    })
  })

  test('unknown paths show the 404 page', async ({ page }) => {
    const response = await page.goto('/no-such-page')
    expect(response?.status()).toBe(404)
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible()
  })
})

// The anonymous page cache (app/lib/server/page-cache.server.ts): the second anonymous visit of a
// page is answered from the first one's render. It must still be a working page (its scripts
// run under its own nonce), and never what a signed-in visitor gets.
test.describe('pages answered from the anonymous page cache', () => {
  test('hydrate under a fresh nonce, and a signed-in visitor gets their own page', async ({
    page,
    request,
  }) => {
    const errors: string[] = []
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(error.message))
    const nonces = new Set<string>()
    for (let visit = 0; visit < 3; visit++) {
      const answer = await request.get('/pricing')
      const csp = answer.headers()['content-security-policy'] ?? ''
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1]
      expect(nonce).toBeTruthy()
      const html = await answer.text()
      // Every inline script carries this answer's nonce, and no other nonce is in the page.
      expect(html.match(/nonce="([^"]+)"/g)?.every((found) => found === `nonce="${nonce}"`)).toBe(
        true,
      )
      nonces.add(nonce!)
      // The first visit may have been earlier; from the second on, the page comes from it.
      if (visit > 0) expect(answer.headers()['server-timing']).toBe('page-cache;desc="hit"')
    }
    expect(nonces.size).toBe(3)

    // A cached answer in the browser: its inline scripts ran and the app hydrated, without a
    // CSP violation.
    await page.goto('/pricing')
    await page.goto('/pricing')
    await expect
      .poll(() => page.evaluate(() => '__remixRouter' in window && '__remixContext' in window))
      .toBe(true)
    await page.waitForLoadState('networkidle')
    expect(errors).toEqual([])

    const user = await createUser()
    await signIn(page, user.email)
    await page.goto('/pricing')
    await expect(page.getByRole('navigation', { name: 'Main' })).not.toContainText('Sign in')
    await expect(page.getByRole('button', { name: /Sign out/ }).first()).toBeVisible()
  })
})
