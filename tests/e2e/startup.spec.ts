import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { expect, test } from '@playwright/test'
import { LOCAL_DEFAULTS } from '../../app/env.server'

// The production build, started the way `npm start` starts it, checks its configuration.
const serverEntry = path.resolve(process.env.BUILD_DIR ?? 'build', 'server/index.js')
const serve = path.resolve('node_modules/@remix-run/serve/dist/cli.js')

function start(env: Record<string, string> & { NODE_ENV: 'production' }) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !(key in LOCAL_DEFAULTS)),
  )
  return spawnSync(process.execPath, [serve, serverEntry], {
    env: { ...clean, PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  })
}

test('refuses to start in production with the local emulator keys, and says why', () => {
  const run = start({ ...LOCAL_DEFAULTS, NODE_ENV: 'production' })
  expect(run.status).toBe(1)
  expect(run.stderr).toContain('Refusing to start in production with local-stack settings')
  expect(run.stderr).toContain('SUPABASE_SERVICE_ROLE_KEY is the local emulator key')
  expect(run.stderr).toContain('STRIPE_API_URL points at the local stack')
})

test('refuses to start with a missing or malformed variable, naming it', () => {
  const run = start({ NODE_ENV: 'production', SITE_URL: 'https://app.example.com/' })
  expect(run.status).toBe(1)
  expect(run.stderr).toMatch(/SITE_URL: must be an origin/)
  expect(run.stderr).toMatch(/STRIPE_SECRET_KEY: is required but not set/)
})
