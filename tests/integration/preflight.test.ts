import { execFile } from 'node:child_process'
import { createServer } from 'node:net'
import { promisify } from 'node:util'

import { expect, it, vi } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { logger } from '../../app/lib/server/logger.server'
import { SUITE_AUTH_LIMITS } from '../local-stack/stack'
import { createSignedInUser, startTestApp, testAppForFile } from './harness'

// `npm run preflight` against the local stack, as set up and then misconfigured.
const app = testAppForFile()

async function preflight(env: Record<string, string> = {}) {
  const run = promisify(execFile)
  return run(process.execPath, ['--import', 'tsx', 'app/preflight.cli.ts'], {
    env: { ...process.env, NODE_ENV: 'test', ...env },
    timeout: 60_000,
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  )
}

/** A loopback port nothing listens on. */
async function closedPort() {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

it('a stack set up as the guide says: every check ok, exit 0; a plan the portal lacks is named', async () => {
  // As a real account has it: an endpoint made on a later version of the pinned release,
  // and a portal whose plans Stripe lists only when they are expanded.
  app.stack.stripe.configureWebhookEndpoint({ api_version: '2026-12-16.endive' })
  const { code, stdout } = await preflight()
  expect(stdout).toContain('no faults')
  for (const check of ['site', 'supabase', 'mail', 'stripe', 'polar'])
    expect(stdout).toMatch(new RegExp(`^ok +${check}$`, 'm'))
  expect(code).toBe(0)

  app.stack.stripe.setPortalPrices([catalogPlan('starter').stripe.priceId])
  const lacking = await preflight()
  expect(lacking.stdout.split('\n').filter((line) => line.startsWith('FAULT'))).toEqual([
    'FAULT stripe: portal configuration bpc_local_emulator_default does not offer Pro',
  ])
  expect(lacking.code).toBe(1)
}, 90_000)

it('a misconfigured stack: each fault named, exit 1', async () => {
  const { stripe, polar } = app.stack
  stripe.configureWebhookEndpoint({
    enabled_events: ['customer.subscription.created', 'invoice.payment_succeeded'],
    api_version: '2024-06-20',
  })
  stripe.setWebhookEndpointDisabled(true)
  stripe.setPortalPlanChanges(false)
  polar.setEndpointEvents(['subscription.created', 'order.paid'])
  polar.setEndpointEnabled(false)
  const { code, stdout } = await preflight({
    SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`,
  })
  const faults = stdout.split('\n').filter((line) => line.startsWith('FAULT'))
  expect(faults).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^FAULT stripe: webhook endpoint we_\w+ is disabled$/),
      expect.stringMatching(
        /^FAULT stripe: webhook endpoint we_\w+ does not send customer\.subscription\.updated, customer\.subscription\.deleted, invoice\.paid, invoice\.payment_failed, charge\.refunded, charge\.dispute\.created, charge\.dispute\.closed$/,
      ),
      expect.stringMatching(
        /sends API version 2024-06-20, not endive \(2026-10-28\.endive or later\)$/,
      ),
      'FAULT stripe: portal configuration bpc_local_emulator_default does not let customers change plans',
      expect.stringMatching(/^FAULT polar: webhook endpoint [\w-]+ is disabled$/),
      expect.stringMatching(
        /^FAULT polar: webhook endpoint [\w-]+ does not send subscription\.updated, .*order\.refunded$/,
      ),
      expect.stringMatching(/^FAULT mail: .*ECONNREFUSED/),
    ]),
  )
  expect(code).toBe(1)

  // The endpoints moved elsewhere, and a site that does not answer.
  stripe.setWebhookUrl('https://elsewhere.example/api/webhooks/stripe')
  polar.setWebhookUrl(undefined)
  const site = `http://127.0.0.1:${await closedPort()}`
  const moved = await preflight({ SITE_URL: site })
  expect(moved.stdout).toContain(
    `FAULT stripe: no webhook endpoint for ${site}/api/webhooks/stripe (there are: https://elsewhere.example/api/webhooks/stripe)`,
  )
  expect(moved.stdout).toContain(
    `FAULT polar: no webhook endpoint for ${site}/api/webhooks/polar (there are: none)`,
  )
  expect(moved.stdout).toMatch(new RegExp(`^FAULT site: .*fetch failed`, 'm'))
  expect(moved.code).toBe(1)
}, 90_000)

it('a Supabase project with sign-ups off, still on the legacy JWT secret: both named', async () => {
  const legacy = await startTestApp({
    supabaseAuth: { ...SUITE_AUTH_LIMITS, jwtSigning: 'legacy', disableSignup: true },
  })
  try {
    const { code, stdout } = await preflight()
    expect(stdout).toMatch(/^FAULT supabase: new sign-ups are off$/m)
    expect(stdout).toMatch(/^FAULT supabase: no asymmetric key in the JWKS/m)
    expect(code).toBe(1)
  } finally {
    await legacy.close()
  }
}, 90_000)

it('a project half-way through "Migrate JWT secret": warned once, counted, and named', async () => {
  // Its JWKS already publishes the standby key, while the legacy secret still signs every token.
  process.env.METRICS_TOKEN = 'metrics-token-for-the-preflight'
  const half = await startTestApp({ supabaseAuth: { ...SUITE_AUTH_LIMITS, jwtSigning: 'standby' } })
  const warn = vi.spyOn(logger, 'warn')
  try {
    for (const user of [await createSignedInUser(half), await createSignedInUser(half)]) {
      const page = await fetch(`${half.url}/dashboard`, { headers: { cookie: user.cookie } })
      expect(page.status).toBe(200)
    }
    const warned = warn.mock.calls.filter(([, message]) => String(message).includes('legacy JWT'))
    expect(warned).toHaveLength(1)
    const metrics = await fetch(`${half.url}/metrics`, {
      headers: { authorization: `Bearer ${process.env.METRICS_TOKEN}` },
    })
    expect(await metrics.text()).toMatch(/^session_tokens_legacy_signed_total 2$/m)
    const { code, stdout } = await preflight()
    expect(stdout).not.toMatch(/^FAULT supabase: no asymmetric key/m)
    expect(stdout).toMatch(/^FAULT site: has verified sessions the legacy JWT secret signed/m)
    expect(code).toBe(1)
  } finally {
    warn.mockRestore()
    delete process.env.METRICS_TOKEN
    await half.close()
  }
}, 90_000)
