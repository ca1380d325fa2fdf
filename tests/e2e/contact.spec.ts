import type { Page } from '@playwright/test'

import { CONTACT_THANK_YOU } from '../../app/contact/schema'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { adminClient, expect, newUser, PHONE, signIn, test, waitForMail } from './fixtures'

/** The team's address of the local defaults (`Name <address>`). */
const TEAM_ADDRESS = /<([^>]+)>/.exec(LOCAL_DEFAULTS.CONTACT_TO)![1]

const valid = {
  'First name': 'Ada',
  'Last name': 'Lovelace',
  Email: 'ada@example.com',
  Company: 'Analytical Engines',
  Message: 'I would like to hear more about the Pro plan.',
}

async function fillForm(page: Page, values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) {
    await page.getByRole('textbox', { name: label }).fill(value)
  }
}

/** Why the page asks for a company (the interface contract requires it). */
const COMPANY_HINT =
  'Required: it tells us which account or team your message is about. Writing for yourself? Put your own name.'

async function expectThankYou(page: Page) {
  const status = page.getByRole('status')
  await expect(status.getByRole('heading', { name: 'Message sent' })).toBeVisible()
  await expect(status).toContainText(CONTACT_THANK_YOU)
  await expect(page.getByRole('button', { name: 'Send message' })).toHaveCount(0)
}

async function expectFieldError(page: Page, label: string, message: string, hint = '') {
  const field = page.getByRole('textbox', { name: label })
  await expect(field).toHaveAttribute('aria-invalid', 'true')
  // A field's hint, if it has one, is read before its error.
  await expect(field).toHaveAccessibleDescription(hint ? `${hint} ${message}` : message)
  await expect(page.getByText(message)).toBeVisible()
}

/** Every post to the contact route: a submission or a validation round trip. */
function contactPosts(page: Page) {
  const posts: string[] = []
  page.on('request', (request) => {
    const url = new URL(request.url())
    if (request.method() === 'POST' && url.pathname.startsWith('/contact'))
      posts.push(`${request.method()} ${url.pathname}`)
  })
  return posts
}

test.describe('contact form with JavaScript on', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/contact')
    await expect(page.getByRole('heading', { level: 1, name: 'Contact us' })).toBeVisible()
    // conform marks the form noValidate once hydrated: from here on JavaScript handles it.
    await expect(page.locator('form#contact')).toHaveAttribute('novalidate', '')
    // The validator (schema and zod) is loaded after hydration, outside the first load.
    await page.waitForLoadState('networkidle')
  })

  test('sends without a full page load, showing the pending state, then thanks', async ({
    page,
  }) => {
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await page.evaluate(() => Object.assign(window, { contactPageMarker: true }))
    await page.route('**/contact.data*', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 500))
      await route.continue()
    })
    await fillForm(page, valid)
    await page.getByRole('button', { name: 'Send message' }).click()
    await expect(page.getByRole('button', { name: 'Sending…' })).toBeDisabled()
    await expectThankYou(page)
    expect(await page.evaluate(() => 'contactPageMarker' in window)).toBe(true)
    await page.getByRole('link', { name: 'Send another message' }).click()
    await expect(page.getByRole('textbox', { name: 'First name' })).toHaveValue('')
    expect(errors).toEqual([])
  })

  test('shows a bad field’s error next to it and clears it once fixed', async ({ page }) => {
    const posts = contactPosts(page)
    await fillForm(page, { ...valid, 'First name': 'A', Email: 'not-an-email' })
    await page.getByRole('button', { name: 'Send message' }).click()
    await expectFieldError(page, 'First name', 'First name must be at least 2 characters')
    await expectFieldError(page, 'Email', 'Enter a valid email address')
    await expect(page.getByRole('textbox', { name: 'Last name' })).not.toHaveAttribute(
      'aria-invalid',
      'true',
    )
    await fillForm(page, { 'First name': 'Al', Email: 'al@example.com' })
    await expect(page.getByText('First name must be at least 2 characters')).toHaveCount(0)
    await expect(page.getByText('Enter a valid email address')).toHaveCount(0)
    // No post (each counts against the rate limit), no validation round trip on blur or input.
    expect(posts).toEqual([])
    await page.getByRole('button', { name: 'Send message' }).click()
    await expectThankYou(page)
    expect(posts).toEqual(['POST /contact.data'])
  })
})

test('a message appearing as a field loses focus never swallows the click on "Send message"', async ({
  page,
}) => {
  await page.goto('/contact')
  await page.waitForLoadState('networkidle')
  // Company is left empty; the message is too short and still has the focus.
  await fillForm(page, { ...valid, Company: '', Message: 'Too short' })
  await page.getByRole('button', { name: 'Send message' }).click()
  // The one click submitted the form: every problem is shown, not only the focused field's.
  await expectFieldError(page, 'Company', 'Company is required', COMPANY_HINT)
  await expectFieldError(page, 'Message', 'Message must be at least 10 characters')
  await fillForm(page, { Company: valid.Company, Message: valid.Message })
  await page.getByRole('button', { name: 'Send message' }).click()
  await expectThankYou(page)
})

test('with JavaScript on but no validator loaded, the server’s errors show inline', async ({
  page,
}) => {
  // A validator that cannot load (offline, a new deploy): the action answers the same errors.
  await page.route('**/assets/form-schema-*.js', (route) => route.abort())
  await page.goto('/contact')
  await expect(page.locator('form#contact')).toHaveAttribute('novalidate', '')
  await page.waitForLoadState('networkidle')
  const posts = contactPosts(page)
  await fillForm(page, { ...valid, 'First name': 'A', Email: 'not-an-email' })
  await page.getByRole('textbox', { name: 'Company' }).blur()
  expect(posts).toEqual([])
  await page.getByRole('button', { name: 'Send message' }).click()
  await expectFieldError(page, 'First name', 'First name must be at least 2 characters')
  await expectFieldError(page, 'Email', 'Enter a valid email address')
  expect(posts).toEqual(['POST /contact.data'])
  await fillForm(page, { 'First name': 'Al', Email: 'al@example.com' })
  await page.getByRole('button', { name: 'Send message' }).click()
  await expectThankYou(page)
})

test.describe('phone width, JavaScript off', () => {
  test.use({ javaScriptEnabled: false, viewport: PHONE })

  test('filled in for a signed-in person; a bad field is told inline, what was typed kept; then stored, to the team, with a receipt', async ({
    page,
  }) => {
    const user = await newUser('contact')
    await adminClient()
      .from('user_profiles')
      .update({ display_name: 'Ada King Lovelace' })
      .eq('user_id', user.id)
    await signIn(page, user.email)
    await page.goto('/contact')
    await expect(page.getByRole('textbox', { name: 'First name' })).toHaveValue('Ada')
    await expect(page.getByRole('textbox', { name: 'Last name' })).toHaveValue('King Lovelace')
    await expect(page.getByRole('textbox', { name: 'Email' })).toHaveValue(user.email)
    const company = `Engines ${Date.now().toString(36)}`
    const message = 'Can the Pro plan be paid yearly? Thanks.'
    // Long enough for the browser's own minlength check, too short once the server trims it.
    await fillForm(page, { 'First name': '  A  ', Company: company, Message: message })
    await page.getByRole('button', { name: 'Send message' }).click()
    await expectFieldError(page, 'First name', 'First name must be at least 2 characters')
    await expect(page.getByRole('textbox', { name: 'Company' })).toHaveValue(company)
    await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue(message)
    await page.getByRole('textbox', { name: 'First name' }).fill('Ada')
    const sentAt = new Date()
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Send message' }).click(),
    ])
    expect(response.status()).toBe(200)
    await expectThankYou(page)

    const { data: stored } = await adminClient()
      .from('contact_messages')
      .select('first_name, last_name, email, company, message')
      .eq('company', company)
    expect(stored).toEqual([
      { first_name: 'Ada', last_name: 'King Lovelace', email: user.email, company, message },
    ])
    const toTeam = await waitForMail(TEAM_ADDRESS, 'smtp', { after: sentAt })
    expect(toTeam.subject).toBe(`Contact form: Ada King Lovelace, ${company}`)
    const receipt = await waitForMail(user.email, 'smtp', { after: sentAt })
    expect(receipt.subject).toBe('We received your message to Subscribely')
  })
})
