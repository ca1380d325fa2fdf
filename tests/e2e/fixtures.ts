import { expect, type Page, test as base, type TestInfo } from '@playwright/test'
import { createClient } from '@supabase/supabase-js'

import { LOCAL_SERVICE_ROLE_KEY } from '../local-stack/supabase/keys'
import { E2E } from './ports'

/** Shared helpers of the browser tests: users, the local inbox, signing in. */

export const PASSWORD = 'correct-horse-battery'

const admin = () =>
  createClient(E2E.supabaseUrl, LOCAL_SERVICE_ROLE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })

/** A unique email address for one test. */
export function uniqueEmail(label = 'user') {
  return `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`
}

/** Creates a confirmed user through the admin API (for journeys that do not test sign-up). */
export async function createUser(email = uniqueEmail(), password = PASSWORD) {
  const { data, error } = await admin().auth.admin.createUser({
    email,
    password,
    email_confirm: true,
  })
  if (error || !data.user) throw new Error(`createUser failed: ${error?.message}`)
  return { id: data.user.id, email, password }
}

/** Deletes a user created by a test (their rows go with them). */
export async function deleteUser(id: string) {
  await admin().auth.admin.deleteUser(id)
}

/** Deletes the users a test signed up through the pages (it only knows their addresses). */
export async function deleteUsersByEmail(emails: string[]) {
  if (emails.length === 0) return
  const { data } = await admin().auth.admin.listUsers({ perPage: 1000 })
  const ids = data.users.filter((user) => emails.includes(user.email ?? '')).map((user) => user.id)
  await Promise.all(ids.map((id) => deleteUser(id)))
}

interface InboxMail {
  to: string
  kind: string
  subject: string
  text: string
  link: string | null
  otp: string | null
  createdAt: string
}

/** Waits for the newest email of a kind (and subject) to an address in the local inbox. */
export async function waitForMail(
  email: string,
  kind: string,
  options: { after?: Date; subject?: string } = {},
): Promise<InboxMail> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const response = await fetch(
      `${E2E.supabaseUrl}/_inbox/messages.json?to=${encodeURIComponent(email)}`,
    )
    const body = (await response.json()) as InboxMail[] | { messages: InboxMail[] }
    const mails = Array.isArray(body) ? body : body.messages
    const match = mails
      .filter(
        (mail) =>
          mail.kind === kind &&
          (!options.subject || mail.subject === options.subject) &&
          (!options.after || new Date(mail.createdAt) >= options.after),
      )
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0]
    if (match) return match
    if (Date.now() > deadline) throw new Error(`no ${kind} mail for ${email}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Signs in through the sign-in page and waits for the dashboard. */
export async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto('/sign-in')
  const form = page.locator('form#sign-in')
  await form.getByLabel('Email').fill(email)
  await form.getByLabel('Password').fill(password)
  await form.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/dashboard/)
}

/** The widths the report's screenshots are taken at: desktop and phone. */
const SCREENSHOT_WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const

/**
 * Attaches full-page screenshots of the page as it is now, at desktop and phone width, to
 * the test report; the viewport is put back afterwards.
 */
export async function attachScreenshots(page: Page, testInfo: TestInfo, name: string) {
  const before = page.viewportSize()
  for (const { name: width, ...size } of SCREENSHOT_WIDTHS) {
    await page.setViewportSize(size)
    await testInfo.attach(`${name} (${width})`, {
      body: await page.screenshot({ fullPage: true }),
      contentType: 'image/png',
    })
  }
  if (before) await page.setViewportSize(before)
}

let clientCounter = 0

/**
 * Each test is another client of the app: the browser-test server trusts one proxy
 * (TRUSTED_PROXY_COUNT=1), and every page of a test sends its own X-Forwarded-For address,
 * so per-client rate limits count each test apart, as they count real visitors apart.
 */
export const test = base.extend({
  // A worker started after a failure counts from 0 again: its index keeps its addresses apart.
  page: async ({ page }, provide, testInfo) => {
    clientCounter += 1
    const network = 10 + (testInfo.workerIndex % 200)
    const address = `10.${network}.${Math.floor(clientCounter / 250) % 250}.${(clientCounter % 250) + 1}`
    await page.setExtraHTTPHeaders({ 'x-forwarded-for': address })
    await provide(page)
  },
})
export { expect }
