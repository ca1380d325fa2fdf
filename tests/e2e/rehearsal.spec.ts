/**
 * The deploy rehearsal (docs/going-live.md on a host): a copy built, installed with
 * `npm ci --omit=dev`, a `.env` from `.env.example`, the release commands and `npm start` as
 * production, then the guide's smoke journey from an IPv6 visitor against fresh keys.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { expect, test } from '@playwright/test'

import { PLAN_CATALOG, planIdSettings } from '../../app/billing/plans'
import { runningProviders } from '../../app/env.server'
import type { Catalog } from '../local-stack/catalog'
import { PROJECT_ROOT } from '../local-stack/database'
import type { LocalStack } from '../local-stack/stack'
import { startAppStack, withBothStandIns } from '../setup/stack'
import { openMailedLink, payOnStripeCheckout, signUp, uniqueEmail, waitForMail } from './fixtures'
import { E2E } from './ports'

/** The deployment's providers (BILLING_PROVIDERS' default): their settings and API URLs. */
const PROVIDERS = runningProviders({})
const PROVIDER_PREFIXES = PROVIDERS.map(({ id }) => `${id.toUpperCase()}_`)
const API_URLS = PROVIDERS.map(({ apiUrl }) => apiUrl.name)

const APP_PORT = E2E.appPort + 70
const SITE_URL = `http://localhost:${APP_PORT}`
const SITE_IPV6 = `http://[::1]:${APP_PORT}`

/** The account's own plans, under ids of this run (production refuses the published ones). */
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
let host: string
let app: ChildProcess | undefined
let appOutput = ''

/** The host's environment: none of the runner's settings, and Node 22 first on the PATH. */
function hostEnv() {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !/^(NODE_ENV|SITE_URL|SUPABASE_|SMTP_|MAIL_|TRUSTED_PROXY|RATE_LIMIT|BENCH_|DEPLOY|LOG_LEVEL|BUILD_DIR|PORT$|HOST$)/.test(
          key,
        ) && !PROVIDER_PREFIXES.some((prefix) => key.startsWith(prefix)),
    ),
  )
  const PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`
  // No NODE_ENV, deliberately (hence not typed as NodeJS.ProcessEnv, which requires one).
  return { ...base, PATH } as Record<string, string | undefined> as NodeJS.ProcessEnv
}

function run(command: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(command, args, { cwd: host, env: { ...hostEnv(), ...env } })
  const result = { status: null as number | null, stdout: '', stderr: '' }
  child.stdout.on('data', (chunk: Buffer) => (result.stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (result.stderr += chunk.toString()))
  return new Promise<typeof result>((resolve) =>
    child.on('close', (code) => resolve({ ...result, status: code })),
  )
}

/** The repository as a checkout has it: its tracked and new files, nothing it ignores. */
function copyRepository(to: string) {
  const files = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: PROJECT_ROOT,
    },
  )
    .toString()
    .split('\0')
  for (const file of files) {
    if (file && existsSync(path.join(PROJECT_ROOT, file)))
      cpSync(path.join(PROJECT_ROOT, file), path.join(to, file), { recursive: true })
  }
}

/** `.env.example` without its development block, with this deployment's values. */
function dotEnv(settings: Record<string, string>) {
  const example = readFileSync(path.join(host, '.env.example'), 'utf8').split(
    '# --- Development only',
  )[0]
  const written = new Set<string>()
  const lines = example.split('\n').map((line) => {
    const name = /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1]
    if (!name || !(name in settings)) return line
    written.add(name)
    return `${name}=${JSON.stringify(settings[name])}`
  })
  for (const [name, value] of Object.entries(settings))
    if (!written.has(name)) lines.push(`${name}=${JSON.stringify(value)}`)
  return `${lines.join('\n')}\n`
}

test.describe.configure({ mode: 'serial' })

test.beforeAll(async () => {
  test.setTimeout(300_000)
  const catalog = accountCatalog()
  stack = withBothStandIns(
    await startAppStack({
      siteUrl: SITE_URL,
      catalog,
      keys: 'fresh',
      // The guide's Supabase step 7: the secret key, and "IP address forwarding" on.
      supabaseKeys: 'new',
      supabaseAuth: { sbForwardedFor: true },
    }),
  )
  // Node may resolve `localhost` to 127.0.0.1 alone; the server listens on ::1 only.
  for (const provider of ['stripe', 'polar'] as const)
    stack[provider].setWebhookUrl(`${SITE_IPV6}/api/webhooks/${provider}`)
  host = mkdtempSync(path.join(os.tmpdir(), 'rehearsal-host-'))
  copyRepository(host)
  // Built with this checkout's dev dependencies (linked)...
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(host, 'node_modules'))
  const build = await run('npm', ['run', 'build'])
  expect(build.status, build.stdout + build.stderr).toBe(0)
  // ...then installed as production installs are: dependencies only.
  unlinkSync(path.join(host, 'node_modules'))
  const install = await run('npm', [
    'ci',
    '--omit=dev',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
  ])
  expect(install.status, install.stdout + install.stderr).toBe(0)
  writeFileSync(
    path.join(host, '.env'),
    dotEnv({
      ...stack.env,
      ...planIdSettings(catalog.plans),
      POLAR_SANDBOX: 'false',
      MAIL_FROM: 'Subscribely <no-reply@rehearsal.example>',
      CONTACT_TO: 'Support <support@rehearsal.example>',
      PORT: String(APP_PORT),
      HOST: '::1',
      // The one rehearsal-only setting: provider URLs on this machine are accepted, nothing else.
      DEPLOY_REHEARSAL: '1',
    }),
  )
})

test.afterAll(async () => {
  if (app?.pid && app.exitCode === null) {
    const exited = new Promise((resolve) => app!.once('exit', resolve))
    process.kill(-app.pid, 'SIGTERM')
    await exited
  }
  await stack?.close()
  if (host) rmSync(host, { recursive: true, force: true })
})

test('the guide on a host: a production install, .env, the release commands, npm start', async () => {
  test.setTimeout(90_000)
  expect(existsSync(path.join(host, 'node_modules/tsx'))).toBe(false)
  expect(existsSync(path.join(host, 'build/commands'))).toBe(true)

  // Without the provider URL lines (unset is the real service), which DEPLOY_REHEARSAL refuses.
  const dotEnvFile = path.join(host, '.env')
  const settings = readFileSync(dotEnvFile, 'utf8')
  const kept = (line: string) => !API_URLS.some((name) => line.startsWith(`${name}=`))
  writeFileSync(dotEnvFile, settings.split('\n').filter(kept).join('\n'))
  for (const args of [
    ['run', 'preflight'],
    ['run', 'billing:reconcile', '--', '--check'],
  ]) {
    const unset = await run('npm', args)
    expect(unset.status, unset.stdout + unset.stderr).toBe(1)
    for (const name of API_URLS)
      expect(unset.stderr).toContain(`${name} is not set (unset means the real service)`)
  }
  writeFileSync(dotEnvFile, settings)

  const sync = await run('npm', ['run', 'stripe:sync-products'])
  expect(sync.stderr).not.toContain('Sync failed')
  expect(sync.status, sync.stdout + sync.stderr).toBe(0)
  expect(sync.stdout).toContain('Synced 2 prices')
  const check = await run('npm', ['run', 'billing:reconcile', '--', '--check'])
  expect(check.status, check.stdout + check.stderr).toBe(0)
  expect(check.stdout).toContain(`production: Supabase at ${stack.env.SUPABASE_URL}`)
  expect(check.stdout).toContain('stripe: everything: 0 subscriptions')

  // `npm start`, in a process group of its own so the whole of it stops at the end.
  app = spawn('npm', ['start'], {
    cwd: host,
    env: hostEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  app.stdout?.on('data', (chunk: Buffer) => (appOutput += chunk.toString()))
  app.stderr?.on('data', (chunk: Buffer) => (appOutput += chunk.toString()))
  await expect(async () => {
    expect(app!.exitCode, appOutput).toBeNull()
    const response = await fetch(`${SITE_IPV6}/healthz`)
    expect(response.status).toBe(200)
  }).toPass({ timeout: 30_000 })
  expect(appOutput).toContain(`(production)`)
  const page = await fetch(`${SITE_IPV6}/pricing`)
  expect(page.headers.get('strict-transport-security')).toBeTruthy()

  // Once the site is up, as Node here reaches it: nothing to fix.
  const preflight = await run('npm', ['run', 'preflight'], { SITE_URL: SITE_IPV6 })
  for (const name of ['site', 'supabase', 'mail', 'stripe', 'polar'])
    expect(preflight.stdout).toMatch(new RegExp(`^ok +${name}$`, 'm'))
  expect(preflight.stdout).toContain('no faults')
  expect(preflight.status, preflight.stdout + preflight.stderr).toBe(0)
})

test('the smoke journey: sign up, confirm by mail, subscribe, webhook applied, billing, sign out', async ({
  page,
}) => {
  test.setTimeout(90_000)
  test.skip(!app || app.exitCode !== null, 'the server did not start')
  const email = uniqueEmail('rehearsal')

  await page.goto(`${SITE_URL}/sign-up`)
  await signUp(page, email)
  const mail = await waitForMail(email, 'signup', { inbox: stack.env.SUPABASE_URL })
  await openMailedLink(page, mail.link!)
  await expect(page).toHaveURL(`${SITE_URL}/dashboard`)

  await page.goto(`${SITE_URL}/subscribe/pro`)
  await expect(page).toHaveURL(/\/checkout\/cs_test_\w+$/)
  await expect(page.getByRole('heading', { name: 'Subscribe to Pro' })).toBeVisible()
  await payOnStripeCheckout(page)
  await expect(page.getByRole('heading', { level: 1, name: 'Payment successful' })).toBeVisible()

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
  // The auth server counted the visitor by its one address, ::1, never this server's.
  expect(stack.supabase.authClients()).toContain('::1')
  expect(stack.supabase.authClients()).not.toContain('127.0.0.1')
  const check = await run('npm', ['run', 'billing:reconcile', '--', '--check'])
  expect(check.status, check.stdout + check.stderr).toBe(0)
  expect(check.stdout).toMatch(
    /stripe: changed since \S+: 1 subscriptions, 1 users, 0 differ, 0 payments missing/,
  )
  // No request needed the published keys or a development default: the server logged no error.
  expect(appOutput).not.toMatch(/"level":"error"/)
})
