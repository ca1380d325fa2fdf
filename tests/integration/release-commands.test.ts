import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { PROJECT_ROOT } from '../local-stack/database'
import { LOCAL_DEV } from '../local-stack/defaults'
import type { PartialLocalStack } from '../local-stack/stack'
import { startAppStack } from '../setup/stack'

// The release commands run as production with no environment: nothing falls back to a
// developer's local stack on its default ports.
const PORTS = { supabase: 54421, stripe: 12111, polar: 12112, smtp: 54425 }
let stack: PartialLocalStack | undefined
let cwd: string

/** Whether nothing listens on the port yet (another run's stack may hold the default ports). */
async function free(port: number) {
  const server = createServer()
  const listening = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => resolve(true))
  })
  if (listening) await new Promise((resolve) => server.close(resolve))
  return listening
}

beforeAll(async () => {
  cwd = mkdtempSync(path.join(os.tmpdir(), 'release-commands-'))
  const ports = await Promise.all(Object.values(PORTS).map(free))
  if (ports.every(Boolean))
    stack = await startAppStack({ siteUrl: LOCAL_DEV.siteUrl, ports: PORTS })
})
afterAll(async () => {
  await stack?.close()
  rmSync(cwd, { recursive: true, force: true })
})

it.each([
  ['preflight', 'app/preflight.cli.ts', []],
  ['billing:reconcile -- --check', 'app/billing/reconcile.cli.ts', ['--check']],
  ['stripe:sync-products', 'app/billing/stripe/sync-products.cli.ts', []],
])(
  '%s with an empty environment names each missing setting, exit 1',
  async (_, file, args) => {
    const tsx = path.join(PROJECT_ROOT, 'node_modules/tsx/dist/loader.mjs')
    // No NODE_ENV, deliberately: only where Node is and where tsx finds the project's paths.
    const tsconfig = path.join(PROJECT_ROOT, 'tsconfig.json')
    const env = { PATH: process.env.PATH, TSX_TSCONFIG_PATH: tsconfig } as Record<
      string,
      string | undefined
    > as NodeJS.ProcessEnv
    const run = await promisify(execFile)(
      process.execPath,
      ['--import', tsx, path.join(PROJECT_ROOT, file), ...args],
      { cwd, env, timeout: 60_000 },
    ).then(
      (done) => ({ ...done, code: 0 }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    )
    expect(run.stdout).not.toMatch(/no faults|Synced|last event in the ledger/)
    for (const name of [
      'SITE_URL',
      'SUPABASE_URL',
      'SUPABASE_SERVICE_ROLE_KEY',
      'STRIPE_SECRET_KEY',
    ])
      expect(run.stderr).toContain(`${name}: is required but not set`)
    expect(run.code).toBe(1)
  },
  60_000,
)
