import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { expect, test } from '@playwright/test'

import { LOCAL_DEFAULTS } from '../../app/env.server'
import { PRODUCTION_ENV } from '../../app/env.test-support'
import { openDatabase } from '../local-stack/database'
import { startSupabaseEmulator } from '../local-stack/supabase'
import { E2E } from './ports'

const serverEntry = path.resolve(process.env.BUILD_DIR ?? 'build', 'server/index.js')
const serve = path.resolve('server.js')

/**
 * server.js with `env` over a clean environment: what it printed once it exits, or once it has
 * printed `until` and, `settleMs` later, is stopped.
 */
async function start(
  env: Record<string, string>,
  options: { cwd?: string; until?: string; settleMs?: number } = {},
) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !(key in LOCAL_DEFAULTS) && key !== 'NODE_ENV'),
  )
  // A port of this run's own (PORT=0 would mean the default, 3000).
  const childEnv: Record<string, string | undefined> = {
    ...clean,
    PORT: String(E2E.appPort + 61),
    HOST: '127.0.0.1',
    ...env,
  }
  const child = spawn(process.execPath, [serve, serverEntry], {
    env: childEnv as NodeJS.ProcessEnv,
    cwd: options.cwd,
  })
  const run = { status: null as number | null, stdout: '', stderr: '' }
  let stopping = false
  const printed = (chunk: Buffer, into: 'stdout' | 'stderr') => {
    run[into] += chunk.toString()
    if (stopping || !(run.stdout + run.stderr).includes(options.until ?? '[server] http')) return
    stopping = true
    setTimeout(() => child.kill('SIGTERM'), options.settleMs ?? 0)
  }
  child.stdout.on('data', (chunk: Buffer) => printed(chunk, 'stdout'))
  child.stderr.on('data', (chunk: Buffer) => printed(chunk, 'stderr'))
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  run.status = await new Promise((resolve) => child.on('exit', resolve))
  clearTimeout(timer)
  return run
}

test('reads a .env in its working directory; a variable the host sets wins over it', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'env-file-'))
  try {
    const { NODE_ENV: _none, ...settings } = PRODUCTION_ENV
    const file = { ...settings, PORT: String(E2E.appPort + 62) }
    const lines = Object.entries(file).map(([name, value]) => `${name}="${value}"`)
    writeFileSync(path.join(dir, '.env'), `# made from .env.example\n${lines.join('\n')}\n`)
    const run = await start({}, { cwd: dir })
    expect(run.stderr).not.toContain('is required but not set')
    // Without NODE_ENV, in production; the one Polar server it reaches is logged.
    expect(run.stdout).toContain(`[server] http://127.0.0.1:${E2E.appPort + 61} (production)`)
    expect(run.stdout + run.stderr).toContain(
      'Polar servers: checkout production, portal production, webhook invoices production',
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

function olderNode(): string | undefined {
  const found = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n')
  return found.find(
    (bin) =>
      bin &&
      Number(execFileSync(bin, ['-p', 'process.versions.node']).toString().split('.')[0]) < 22,
  )
}

test('refuses to start on Node.js older than 22, naming the version it found', async () => {
  // The machine's older Node (as on a host that never installed 22), else Node 22 told it is 20.
  const older = olderNode()
  const pretend = `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'20.11.1'})`
  const [bin, args] = older ? [older, []] : [process.execPath, ['--import', pretend]]
  const version = older
    ? execFileSync(bin, ['-p', 'process.versions.node']).toString().trim()
    : '20.11.1'
  const run = spawnSync(bin, [...args, serve, serverEntry], {
    env: { ...process.env, ...PRODUCTION_ENV } as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 20_000,
  })
  expect(run.status).toBe(1)
  expect(run.stderr).toContain(
    `Node.js ${version} cannot run this server: it needs Node.js 22 or newer`,
  )
  expect(run.stdout).not.toContain('[server]')
})

// Which settings are refused is env.server.test.ts's: here, that a refusal stops the start.
test('refuses to start in production with the local emulator keys and secrets, and says why', async () => {
  const run = await start({
    ...LOCAL_DEFAULTS,
    NODE_ENV: 'production',
    STRIPE_WEBHOOK_SECRET_PREVIOUS: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
    POLAR_WEBHOOK_SECRET_PREVIOUS: LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET,
  })
  expect(run.status).toBe(1)
  expect(run.stdout).not.toContain('[server]')
  expect(run.stderr).toContain('Refusing to start in production with local-stack settings')
  expect(run.stderr).toContain('SUPABASE_SERVICE_ROLE_KEY is the local emulator key')
  expect(run.stderr).toContain('STRIPE_API_URL points at the local stack')
  expect(run.stderr).toContain("STRIPE_PRICE_PRO is the local emulator's id")
  expect(run.stderr).toContain("POLAR_PRODUCT_STARTER is the local emulator's id")
  expect(run.stderr).toContain('STRIPE_WEBHOOK_SECRET_PREVIOUS is the local emulator key')
  expect(run.stderr).toContain('POLAR_WEBHOOK_SECRET_PREVIOUS is the local emulator key')
})

test('refuses to start with a malformed setting, or Polar servers that would differ, naming it', async () => {
  const { POLAR_SANDBOX: _unset, ...mixedPolar } = PRODUCTION_ENV
  for (const [env, said] of [
    [
      { NODE_ENV: 'production', SITE_URL: 'https://app.example.com/' },
      'SITE_URL: must be an origin',
    ],
    [mixedPolar, 'would reach different Polar servers'],
    [
      { ...PRODUCTION_ENV, POLAR_SANDBOX: 'true' },
      'POLAR_SANDBOX=true and DEPLOYMENT_ENVIRONMENT=staging',
    ],
  ] as const) {
    const run = await start(env)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain(said)
  }
})

test('without NODE_ENV, `npm start` runs as production: it refuses the local stack, and says so', async () => {
  for (const nodeEnv of [undefined, '']) {
    const run = await start({
      ...LOCAL_DEFAULTS,
      ...(nodeEnv === undefined ? {} : { NODE_ENV: nodeEnv }),
    })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('Refusing to start in production with local-stack settings')
    expect(run.stderr).toContain('STRIPE_SECRET_KEY is the local emulator key')
    expect(run.stderr).toContain('SUPABASE_URL points at the local stack')
  }
  // Told otherwise, it is not production (development and the tests say so explicitly).
  const development = await start({ ...LOCAL_DEFAULTS, NODE_ENV: 'development' })
  expect(development.stdout).toContain('(development)')
  expect(development.stderr).not.toContain('Refusing to start')
})

test('warns at start when the Supabase project signs with the legacy JWT secret, naming the step', async () => {
  const development = { ...LOCAL_DEFAULTS, NODE_ENV: 'development' }
  const database = await openDatabase()
  const legacy = await startSupabaseEmulator({
    database,
    siteUrl: E2E.siteUrl,
    jwtSigning: 'legacy',
  })
  try {
    const warned = await start(
      { ...development, SUPABASE_URL: legacy.url },
      { until: 'legacy JWT secret' },
    )
    expect(warned.stdout + warned.stderr).toContain(
      '[server] Supabase signs sessions with the legacy JWT secret',
    )
    expect(warned.stdout + warned.stderr).toContain(
      'move the project to asymmetric JWT signing keys (docs/going-live.md',
    )
  } finally {
    await legacy.close()
    await database.close()
  }
  // The suite's stand-in signs with an asymmetric key: no warning, once the JWKS answered.
  const quiet = await start({ ...development, SUPABASE_URL: E2E.supabaseUrl }, { settleMs: 2_000 })
  expect(quiet.stdout).toContain('[server] http://127.0.0.1')
  expect(quiet.stdout + quiet.stderr).not.toContain('legacy JWT secret')
})
