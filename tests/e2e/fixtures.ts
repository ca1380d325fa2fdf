import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

import AxeBuilder from '@axe-core/playwright'
import {
  type Browser,
  type BrowserContextOptions,
  expect,
  type Locator,
  type Page,
  test as base,
  type TestInfo,
} from '@playwright/test'
import { createClient } from '@supabase/supabase-js'

import { EMAIL_CHANGES_ONCE } from '../../app/account/limits'
import { createAccount, PASSWORD } from '../integration/accounts'
import { LOCAL_SERVICE_ROLE_KEY } from '../local-stack/supabase/keys'
import { E2E } from './ports'

export { PASSWORD }

export const adminClient = () =>
  createClient(E2E.supabaseUrl, LOCAL_SERVICE_ROLE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })

const madeIds: string[] = []
const madeEmails: string[] = []

export function uniqueEmail(label = 'user') {
  return `${label}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}@example.com`
}

/** A user made through the admin API, confirmed unless told otherwise; deleted after the test. */
export async function createUser(email = uniqueEmail(), options?: { confirmed?: boolean }) {
  const user = await createAccount(adminClient(), email, options)
  madeIds.push(user.id)
  return user
}

export const newUser = (label: string) => createUser(uniqueEmail(label))

export async function signedInUser(page: Page, label: string) {
  const user = await newUser(label)
  await signIn(page, user.email)
  return user
}

export function deleteAfterTest(email: string) {
  madeEmails.push(email)
}

async function deleteMadeUsers() {
  const emails = madeEmails.splice(0)
  const ids = madeIds.splice(0)
  if (emails.length) {
    const { data } = await adminClient().auth.admin.listUsers({ perPage: 1000 })
    for (const user of data.users) if (emails.includes(user.email ?? '')) ids.push(user.id)
  }
  await Promise.all(ids.map((id) => adminClient().auth.admin.deleteUser(id)))
}

interface InboxMail {
  to: string
  kind: string
  subject: string
  text: string
  html: string
  link: string | null
  otp: string | null
  createdAt: string
}

/** The local inbox's mails to an address (`inbox`: another stack's auth server). */
export async function inboxOf(email: string, inbox: string = E2E.supabaseUrl) {
  const response = await fetch(`${inbox}/_inbox/messages.json?to=${encodeURIComponent(email)}`)
  return ((await response.json()) as { messages: InboxMail[] }).messages
}

/** Waits for the newest mail of a kind (any: `*`) whose subject starts so, to an address. */
export async function waitForMail(
  email: string,
  kind: string,
  options: { after?: Date; subject?: string; inbox?: string } = {},
) {
  let found: InboxMail | undefined
  await expect(async () => {
    found = (await inboxOf(email, options.inbox))
      .filter(
        (mail) =>
          (kind === '*' || mail.kind === kind) &&
          mail.subject.startsWith(options.subject ?? '') &&
          (!options.after || new Date(mail.createdAt) >= options.after),
      )
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0]
    expect(found, `a ${kind} mail to ${email}`).toBeDefined()
  }).toPass({ intervals: [200], timeout: 20_000 })
  return found!
}

/** Fills and sends the sign-up form of the page; an account it makes is deleted after the test. */
export async function fillSignUp(page: Page, email: string) {
  deleteAfterTest(email)
  await page.getByRole('textbox', { name: 'Email' }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
}

export async function signUp(page: Page, email: string) {
  await fillSignUp(page, email)
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()
}

export async function fillSignIn(page: Page, email: string, password = PASSWORD) {
  const form = page.locator('form#sign-in')
  await form.getByLabel('Email').fill(email)
  await form.getByLabel('Password').fill(password)
  await form.getByRole('button', { name: 'Sign in' }).click()
}

export async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto('/sign-in')
  await fillSignIn(page, email, password)
  await expect(page).toHaveURL(/\/dashboard/)
}

export async function askForSignInLink(page: Page, email: string) {
  await page.goto('/sign-in')
  await page.locator('form#sign-in').getByLabel('Email').fill(email)
  await page.getByRole('button', { name: 'Email me a sign-in link' }).click()
  await expect(page).toHaveURL(/\/sign-in\/confirm\?/)
}

/** Follows an emailed link; in a browser that did not ask for it, confirms on the page first. */
export async function openMailedLink(page: Page, link: string, button = /confirm/i) {
  await page.goto(link)
  if (new URL(page.url()).pathname === '/auth/confirm')
    await page.getByRole('button', { name: button }).click()
}

export async function askEmailChange(page: Page, next: string) {
  await page.goto('/dashboard/settings/account')
  await page.getByRole('textbox', { name: 'New email' }).fill(next)
  await page.locator('form#change-email').getByLabel('Current password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Change email' }).click()
  await expect(page.getByRole('status')).toContainText(EMAIL_CHANGES_ONCE)
}

export const mailTo = (email: string, subject: string) => waitForMail(email, '*', { subject })

/** Reloads `path` until `check` passes (its `soon` gives up in half a second): webhooks lag. */
export async function untilWebhookApplied(
  page: Page,
  path: string,
  check: (soon: typeof expect) => Promise<unknown>,
) {
  const soon = expect.configure({ timeout: 500 })
  await expect(async () => {
    await page.goto(path)
    await check(soon)
  }).toPass({ intervals: [250, 500, 1000], timeout: 20_000 })
}

export const planCard = (page: Page, name: string) =>
  page.getByRole('listitem').filter({ has: page.getByRole('heading', { name }) })

export const detail = (region: Locator, term: string) =>
  region
    .locator('dt', { hasText: new RegExp(`^${term}$`) })
    .locator('xpath=following-sibling::dd[1]')

export const stripeCheckoutUrl = new RegExp(`^${E2E.stripeUrl}/checkout/cs_test_\\w+$`)
// The Polar emulator hands out URLs on its bound address (127.0.0.1); the tests say localhost.
export const polarOrigin = `http://(?:localhost|127\\.0\\.0\\.1):${E2E.polarPort}`
export const polarCheckoutUrl = new RegExp(`^${polarOrigin}/checkout/polar_c_[\\w-]+$`)
export const stripePortalUrl = new RegExp(`^${E2E.stripeUrl}/portal/bps_\\w+`)
export const polarPortalUrl = new RegExp(`^${polarOrigin}/portal/polar_cst_[\\w-]+$`)

export async function payOnPolarCheckout(page: Page, plan = 'Pro') {
  await expect(page).toHaveURL(polarCheckoutUrl)
  await expect(page.getByRole('heading', { name: `Subscribe to ${plan}` })).toBeVisible()
  await page.getByLabel('Cardholder name').fill('Ada Lovelace')
  await page.getByRole('button', { name: 'Pay now' }).click()
}

export async function payOnStripeCheckout(page: Page, card = '4242 4242 4242 4242') {
  await page.getByLabel('Card number').fill(card)
  await page.getByLabel('Cardholder name').fill('Ada Lovelace')
  await page.getByRole('button', { name: 'Subscribe', exact: true }).click()
}

/** Buys a plan as the signed-in user does: pricing, the hosted checkout, the success page. */
export async function subscribe(page: Page, provider: 'stripe' | 'polar' = 'stripe', plan = 'Pro') {
  await page.goto('/pricing')
  if (provider === 'stripe') {
    await planCard(page, plan)
      .getByRole('button', { name: `Subscribe to ${plan}: Pay by card` })
      .click()
    await expect(page).toHaveURL(stripeCheckoutUrl)
    await expect(page.getByRole('heading', { name: `Subscribe to ${plan}` })).toBeVisible()
    await payOnStripeCheckout(page)
  } else {
    await planCard(page, plan)
      .getByRole('link', { name: `Subscribe to ${plan}: Pay with Polar` })
      .click()
    await payOnPolarCheckout(page, plan)
  }
  await expect(page.getByRole('heading', { level: 1, name: 'Payment successful' })).toBeVisible()
}

/** Axe's serious and critical findings on the page once it is idle, one line each. */
export async function axeFindings(page: Page) {
  await page.waitForLoadState('networkidle')
  const { violations } = await new AxeBuilder({ page }).analyze()
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} ${v.helpUrl} at ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    )
}

/** axeFindings in the light and then the dark colour scheme (which stays on), each so named. */
export async function axeLightAndDark(page: Page) {
  const findings: string[] = []
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    findings.push(...(await axeFindings(page)).map((finding) => `${colorScheme}: ${finding}`))
  }
  return findings
}

export const PHONE = { width: 390, height: 844 }

export async function attachScreenshots(page: Page, testInfo: TestInfo, name: string) {
  const before = page.viewportSize()
  for (const { name: width, ...size } of [
    { name: 'desktop', width: 1280, height: 800 },
    { name: 'phone', ...PHONE },
  ]) {
    await page.setViewportSize(size)
    await testInfo.attach(`${name} (${width})`, {
      body: await page.screenshot({ fullPage: true }),
      contentType: 'image/png',
    })
  }
  if (before) await page.setViewportSize(before)
}

let clientCounter = 0

/** The next client address: the worker's index keeps a restarted worker's addresses apart. */
function nextClientAddress() {
  clientCounter += 1
  const network = 10 + (base.info().workerIndex % 200)
  return `10.${network}.${Math.floor(clientCounter / 250) % 250}.${(clientCounter % 250) + 1}`
}

/** A page in a browser of its own (another device), another client as each test's page is. */
export async function otherDevice(browser: Browser, options: BrowserContextOptions = {}) {
  const context = await browser.newContext(options)
  await context.setExtraHTTPHeaders({ 'x-forwarded-for': nextClientAddress() })
  return context.newPage()
}

/** Each test is a client of its own (X-Forwarded-For, one proxy trusted) for the rate limits. */
export const test = base.extend<{ cleanUp: void }>({
  page: async ({ page }, provide) => {
    await page.setExtraHTTPHeaders({ 'x-forwarded-for': nextClientAddress() })
    await provide(page)
  },
  cleanUp: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads what a fixture destructures
    async ({}, provide) => {
      await provide()
      await deleteMadeUsers()
    },
    { auto: true },
  ],
})
export { expect }

interface ManifestRoute {
  id: string
  path?: string
  index?: boolean
  parentId?: string
}

/** Each route of the build, from its browser manifest, its parameters filled in. */
export function routeUrls() {
  const assets = path.resolve(process.env.BUILD_DIR ?? 'build', 'client/assets')
  const file = readdirSync(assets).find((name) => /^manifest-.*\.js$/.test(name))
  const source = readFileSync(path.join(assets, file!), 'utf8')
  const { routes } = JSON.parse(source.replace(/^window\.__remixManifest=|;$/g, '')) as {
    routes: Record<string, ManifestRoute>
  }
  const fullPath = (route: ManifestRoute): string => {
    const parent = route.parentId ? fullPath(routes[route.parentId]) : ''
    return [parent, route.path ?? ''].filter(Boolean).join('/')
  }
  return Object.values(routes)
    .filter((route) => route.id !== 'root')
    .map((route) => ({
      id: route.id,
      path: `/${fullPath(route)
        .replace('*', 'no-such-page')
        .replace(/:[^/]+/g, 'pro')}`,
      index: route.index === true,
    }))
}
