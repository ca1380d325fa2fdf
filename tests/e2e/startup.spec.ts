import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { expect, test } from '@playwright/test'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { PRODUCTION_ENV } from '../../app/env.test-support'

// The production build, started the way `npm start` starts it, checks its configuration.
const serverEntry = path.resolve(process.env.BUILD_DIR ?? 'build', 'server/index.js')
const serve = path.resolve('server.js')

function start(env: Record<string, string> & { NODE_ENV: 'production' }, timeout = 20_000) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !(key in LOCAL_DEFAULTS)),
  )
  return spawnSync(process.execPath, [serve, serverEntry], {
    env: { ...clean, PORT: '0', ...env },
    encoding: 'utf8',
    timeout,
  })
}

test('refuses to start in production with the local emulator keys, and says why', () => {
  const run = start({ ...LOCAL_DEFAULTS, NODE_ENV: 'production' })
  expect(run.status).toBe(1)
  expect(run.stderr).toContain('Refusing to start in production with local-stack settings')
  expect(run.stderr).toContain('SUPABASE_SERVICE_ROLE_KEY is the local emulator key')
  expect(run.stderr).toContain('STRIPE_API_URL points at the local stack')
  expect(run.stderr).toContain("STRIPE_PRICE_PRO is the local emulator's id")
  expect(run.stderr).toContain("POLAR_PRODUCT_STARTER is the local emulator's id")
})

test('refuses to start with a missing or malformed variable, naming it', () => {
  const run = start({ NODE_ENV: 'production', SITE_URL: 'https://app.example.com/' })
  expect(run.status).toBe(1)
  expect(run.stderr).toMatch(/SITE_URL: must be an origin/)
  expect(run.stderr).toMatch(/STRIPE_SECRET_KEY: is required but not set/)
  // The plan catalogue never falls back to the emulator's ids in production.
  expect(run.stderr).toMatch(/STRIPE_PRICE_STARTER: is required but not set/)
  expect(run.stderr).toMatch(/POLAR_PRODUCT_PRO: is required but not set/)
})

test('logs which Polar server each purpose uses, and warns when they differ', () => {
  const real = { ...PRODUCTION_ENV, NODE_ENV: 'production' as const }
  // A valid configuration starts a server: the report is read from its first seconds.
  const run = start(real, 6_000)
  const output = run.stdout + run.stderr
  expect(output).toContain('checkout sandbox, portal production, webhook invoices production')
  expect(output).toContain('Set POLAR_SANDBOX=false')
  const refused = start({ ...real, POLAR_SANDBOX: 'yes' })
  expect(refused.status).toBe(1)
  expect(refused.stderr).toContain('POLAR_SANDBOX: must be true or false (any letter case)')
})
