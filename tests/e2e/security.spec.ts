import type { ConsoleMessage } from '@playwright/test'

import { createUser, expect, signIn, test } from './fixtures'
import { E2E } from './ports'

/** The CSP's nonces let the app hydrate; a form posted from another site is refused. */

test('a page carries a CSP with a fresh nonce that its inline scripts carry, and hydrates under it', async ({
  page,
}) => {
  const violations: string[] = []
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') violations.push(message.text())
  })
  const response = await page.goto('/pricing')
  const headers = response!.headers()
  const csp = headers['content-security-policy']
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/)
  // NODE_ENV=test: no HSTS (production only).
  expect(headers['strict-transport-security']).toBeUndefined()

  const nonce = /'nonce-([^']+)'/.exec(csp)![1]
  const html = await response!.text()
  const inlineScripts = [...html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)]
  expect(inlineScripts.length).toBeGreaterThan(0)
  for (const [, attributes] of inlineScripts) expect(attributes).toContain(`nonce="${nonce}"`)
  expect(html).not.toMatch(/\sstyle="/)

  // Hydrated: a client-side navigation works, and nothing was blocked.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Contact' })
    .click()
  await expect(page.getByRole('heading', { level: 1, name: 'Contact us' })).toBeVisible()
  await page.waitForLoadState('networkidle')
  expect(violations).toEqual([])

  const again = await page.request.get('/pricing')
  expect(again.headers()['content-security-policy']).not.toContain(`'nonce-${nonce}'`)
})

test('forms posted from another site are refused; the same form on our site works', async ({
  page,
}) => {
  const user = await createUser()
  await signIn(page, user.email)
  // A page on another origin whose forms post to our actions (CSRF attempts).
  const attacker = 'http://attacker.test'
  const fields = `<input name="firstName" value="Eve"><input name="lastName" value="Mallory">
      <input name="email" value="eve@example.com"><input name="company" value="Evil Corp">
      <input name="message" value="This message was sent by another site.">`
  const targets = {
    Document: '/contact',
    Data: '/contact.data',
    SignOut: '/sign-out',
    Api: '/api/contact',
  }
  await page.context().route(`${attacker}/**`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html>${Object.entries(targets)
        .map(
          ([label, path]) =>
            `<form method="post" action="${E2E.siteUrl}${path}">${fields}<button>${label}</button></form>`,
        )
        .join('')}`,
    }),
  )
  // Each post from a fresh tab: a refused document post ends on Chromium's error page.
  async function postFromAttacker(label: keyof typeof targets) {
    const tab = await page.context().newPage()
    try {
      await tab.goto(`${attacker}/`)
      const [response] = await Promise.all([
        tab.waitForResponse((r) => r.url() === `${E2E.siteUrl}${targets[label]}`),
        tab.getByRole('button', { name: label }).click(),
      ])
      return response.status()
    } finally {
      await tab.close()
    }
  }

  // Page actions and resource routes: the request policy's 403 before Remix (decisions/0002).
  for (const label of Object.keys(targets) as (keyof typeof targets)[])
    expect(await postFromAttacker(label), label).toBe(403)
  // The forged sign-out changed nothing, nor does visiting /sign-out: signing out is a POST.
  await page.goto('/sign-out')
  await page.goto('/dashboard')
  await expect(page).toHaveURL(/\/dashboard$/)
})
