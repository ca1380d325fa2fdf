import type { ConsoleMessage } from '@playwright/test'
import { expect, test } from './fixtures'

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
