/**
 * The deploy rehearsal (docs/decisions/0016-deploy-rehearsal.md): the production build,
 * configured with the steps of docs/going-live.md and started exactly as it says (`npm start`,
 * no NODE_ENV), against a local stack in its default (strict) settings that issued fresh keys
 * for this run, passes the guide's smoke journey: sign up, confirm by the mailed link,
 * subscribe, the webhook applied, the billing page, sign out.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'

import { expect, test } from '@playwright/test'

import { PLAN_CATALOG, planIdSettings } from '../../app/billing/plans'
import type { Catalog } from '../local-stack/catalog'
import { PROJECT_ROOT } from '../local-stack/database'
import { type LocalStack, startLocalStack } from '../local-stack/stack'
import { PASSWORD, uniqueEmail } from './fixtures'
import { E2E } from './ports'

const APP_PORT = E2E.appPort + 70
const SITE_URL = `http://localhost:${APP_PORT}`

/**
 * The account's own products and prices, as the guide has them created in each dashboard
 * (Stripe, "Products and prices"; Polar, "Products"): the product's plans under ids of this
 * run, never the local stack's published ones (which production refuses).
 */
function accountCatalog(): Catalog {
  const suffix = () => randomUUID().replace(/-/g, '').slice(0, 14)
  return {
    plans: PLAN_CATALOG.plans.map((plan) => ({
      ...plan,
      stripe: { productId: `prod_${suffix()}`, priceId: `price_${suffix()}` },
      polar: { productId: randomUUID() },
    })),
  }
}

let stack: LocalStack
let app: ChildProcess | undefined
let appOutput = ''
/** No NODE_ENV, deliberately (hence not typed as NodeJS.ProcessEnv, which requires one). */
let deployEnv: Record<string, string | undefined>

/** The deployment's environment, set as docs/going-live.md, "Deploy", says. */
function deploymentEnv(catalog: Catalog): Record<string, string | undefined> {
  // Nothing of this test runner's environment that the app reads (no NODE_ENV above all).
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !/^(NODE_ENV|SITE_URL|SUPABASE_|STRIPE_|POLAR_|SMTP_|MAIL_|TRUSTED_PROXY|RATE_LIMIT|BENCH_|DEPLOY|LOG_LEVEL|PORT$|HOST$)/.test(
          key,
        ),
    ),
  )
  return {
    ...base,
    // Supabase, Stripe and Polar keys and URLs: the stack's, made for this run.
    ...stack.env,
    // Stripe: the account's price ids (STRIPE_PRICE_STARTER, …). Polar: its product ids
    // (POLAR_PRODUCT_STARTER, …), production server.
    ...planIdSettings(catalog.plans),
    POLAR_SANDBOX: 'false',
    MAIL_FROM: 'Subscribely <no-reply@rehearsal.example>',
    PORT: String(APP_PORT),
    HOST: '127.0.0.1',
    // The one rehearsal-only setting: provider URLs on this machine are accepted, nothing else.
    DEPLOY_REHEARSAL: '1',
  }
}

/**
 * Runs one of the guide's npm commands as the guide does, with the deployment's environment
 * (asynchronously: the stack it talks to answers from this process).
 */
function npm(args: string[]) {
  const child = spawn('npm', args, { cwd: PROJECT_ROOT, env: deployEnv as NodeJS.ProcessEnv })
  const result = { status: null as number | null, stdout: '', stderr: '' }
  child.stdout.on('data', (chunk: Buffer) => (result.stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (result.stderr += chunk.toString()))
  return new Promise<typeof result>((resolve) =>
    child.on('close', (code) => resolve({ ...result, status: code })),
  )
}

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  test.setTimeout(120_000)
  const catalog = accountCatalog()
  stack = await startLocalStack({ siteUrl: SITE_URL, catalog, keys: 'fresh' })
  deployEnv = deploymentEnv(catalog)
})

test.afterAll(async () => {
  if (app?.pid && app.exitCode === null) {
    const exited = new Promise((resolve) => app!.once('exit', resolve))
    process.kill(-app.pid, 'SIGTERM')
    await exited
  }
  await stack?.close()
})

test('the guide: npm run stripe:sync-products, then npm start, with no NODE_ENV', async () => {
  test.setTimeout(60_000)
  expect(deployEnv.NODE_ENV).toBeUndefined()
  const sync = await npm(['run', 'stripe:sync-products'])
  expect(sync.stderr).not.toContain('Sync failed')
  expect(sync.status).toBe(0)
  expect(sync.stdout).toContain('Synced 2 prices')

  // `npm start`, in a process group of its own so the whole of it stops at the end.
  const buildArgs = process.env.BUILD_DIR ? ['--', `${process.env.BUILD_DIR}/server/index.js`] : []
  app = spawn('npm', ['start', ...buildArgs], {
    cwd: PROJECT_ROOT,
    env: deployEnv as NodeJS.ProcessEnv,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  app.stdout?.on('data', (chunk: Buffer) => (appOutput += chunk.toString()))
  app.stderr?.on('data', (chunk: Buffer) => (appOutput += chunk.toString()))
  await expect(async () => {
    expect(app!.exitCode, appOutput).toBeNull()
    const response = await fetch(`http://127.0.0.1:${APP_PORT}/healthz`)
    expect(response.status).toBe(200)
  }).toPass({ timeout: 30_000 })
  // It runs as production: production's mode, headers and checks.
  expect(appOutput).toContain(`(production)`)
  const page = await fetch(`http://127.0.0.1:${APP_PORT}/pricing`)
  expect(page.headers.get('strict-transport-security')).toBeTruthy()
})

/** The newest mail of a kind to an address in the stack's inbox. */
async function waitForMail(email: string, kind: string) {
  const deadline = Date.now() + 15_000
  for (;;) {
    const response = await fetch(
      `${stack.env.SUPABASE_URL}/_inbox/messages.json?to=${encodeURIComponent(email)}`,
    )
    const body = (await response.json()) as
      | { kind: string; link: string | null }[]
      | { messages: { kind: string; link: string | null }[] }
    const mail = (Array.isArray(body) ? body : body.messages).find((m) => m.kind === kind)
    if (mail?.link) return mail
    if (Date.now() > deadline) throw new Error(`no ${kind} mail for ${email}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

test('the smoke journey: sign up, confirm by mail, subscribe, webhook applied, billing, sign out', async ({
  page,
}) => {
  test.setTimeout(90_000)
  test.skip(!app || app.exitCode !== null, 'the server did not start')
  const email = uniqueEmail('rehearsal')

  await page.goto(`${SITE_URL}/sign-up`)
  await page.getByRole('textbox', { name: 'Email' }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()

  const mail = await waitForMail(email, 'signup')
  await page.goto(mail.link!)
  const confirm = page.getByRole('button', { name: /confirm/i })
  if (await confirm.isVisible().catch(() => false)) await confirm.click()
  await expect(page).toHaveURL(`${SITE_URL}/dashboard`)

  await page.goto(`${SITE_URL}/subscribe/pro`)
  await expect(page).toHaveURL(/\/checkout\/cs_test_\w+$/)
  await expect(page.getByRole('heading', { name: 'Subscribe to Pro' })).toBeVisible()
  await page.getByLabel('Card number').fill('4242 4242 4242 4242')
  await page.getByLabel('Cardholder name').fill('Ada Lovelace')
  await page.getByRole('button', { name: 'Subscribe', exact: true }).click()
  await expect(page.getByRole('heading', { level: 1, name: 'Payment successful' })).toBeVisible()

  // The webhook reached the production server, signed with this run's secret, and was applied.
  await expect(async () => {
    await page.goto(`${SITE_URL}/dashboard`)
    const plan = page.getByRole('region', { name: 'Your plan' })
    await expect(plan).toContainText('Pro', { timeout: 500 })
    await expect(plan).toContainText('Status: Active', { timeout: 500 })
  }).toPass({ intervals: [250, 500, 1000], timeout: 20_000 })

  await page.goto(`${SITE_URL}/dashboard/settings/billing`)
  await expect(page.getByRole('heading', { level: 1, name: 'Billing' })).toBeVisible()
  await expect(page.getByRole('region', { name: 'Payment history' })).toContainText('$29.00')

  await page.getByRole('button', { name: 'Sign out' }).first().click()
  await expect(page.getByRole('link', { name: 'Sign in' }).first()).toBeVisible()
  await page.goto(`${SITE_URL}/dashboard`)
  await expect(page).toHaveURL(/\/sign-in/)
  // No request needed the published keys or a development default: the server logged no error.
  expect(appOutput).not.toMatch(/"level":"error"/)
})
