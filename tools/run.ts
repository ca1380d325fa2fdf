// `npm test`: every check, in parallel where the cores allow (TEST_CAPACITY: how many cores'
// worth at once). With DATABASE_URL the database and integration tests run on that server,
// where production runs them, the rest on PGlite.
import os from 'node:os'
import path from 'node:path'

import { PROJECT_ROOT } from '../tests/local-stack/database'
import { runSteps, type Step } from './steps'

const bin = (name: string) => path.join(PROJECT_ROOT, 'node_modules/.bin', name)
const withoutDatabaseUrl = { ...process.env, DATABASE_URL: '' }
const serverUrl = process.env.DATABASE_URL

// The stack's database module runs on both engines, each of which it supports.
const SERVER_TESTS_ARGS = [
  ...['--project', 'database', '--project', 'local-stack'],
  ...['tests/db', 'tests/integration', 'tests/setup', 'tests/local-stack/database'],
]
const PGLITE_PROJECTS = serverUrl ? ['--project', 'unit', '--project', 'local-stack'] : []

const SKIPPED_EXIT_CODE = 75 // could not run here: skipped, not failed

/** A step that keeps about half a core busy. */
function light(name: string, tool: string, ...args: string[]): Step {
  return { name, command: bin(tool), args, load: 0.5 }
}
const tsx = (...args: string[]) => ['--import', 'tsx', ...args]
/** The soak on the build just made, at a small size (full size: npm run soak). */
const SOAK_ARGS = 'tools/soak/run.ts --skip-build --build-dir build --users 40 --events 600'
const soakArgs = (flags: string) => tsx(...`${SOAK_ARGS} ${flags}`.split(' '))

const BUILD = 'build'
const SERVER_TESTS = 'database and integration tests (PostgreSQL server)'
const SOAK = 'soak (small)'

const steps: Step[] = [
  { name: BUILD, command: bin('remix'), args: ['vite:build'] },
  // One worker: it mostly waits (on pages, mails, webhooks), about half a core on average.
  { ...light('browser (Chromium)', 'playwright', 'test'), env: withoutDatabaseUrl, after: [BUILD] },
  light('lint', 'eslint', '.'),
  light('format', 'prettier', '--check', '.'),
  light('types', 'tsc'),
  // The local stack compiles alone, with its own tsconfig.json (a package of its own).
  light('types (local stack)', 'tsc', '-p', 'tests/local-stack'),
  // No unused file, export or dependency (knip.json).
  light('dead code (knip)', 'knip', '--no-progress'),
  // No import cycle in app/ (type-only imports count too).
  light(
    'import cycles in app/ (madge)',
    'madge',
    ...['--circular', '--no-spinner', '--extensions', 'ts,tsx', '--ts-config', 'tsconfig.json'],
    'app',
  ),
  // No block of six lines or more repeated in app/ (.jscpd.json).
  light('duplicate code in app/ (jscpd)', 'jscpd', '--silent'),
  {
    name: SERVER_TESTS,
    command: bin('vitest'),
    args: ['run', ...SERVER_TESTS_ARGS],
    skip: serverUrl
      ? undefined
      : 'DATABASE_URL is not set: they run on PGlite (README, "Run the tests")',
  },
  {
    name: serverUrl
      ? 'unit, stack and config tests (PGlite)'
      : 'unit, integration and database tests (PGlite)',
    command: bin('vitest'),
    args: ['run', ...PGLITE_PROJECTS],
    env: withoutDatabaseUrl,
  },
  // Under half a minute, mostly waiting on the app and the stack.
  {
    name: SOAK,
    command: process.execPath,
    args: soakArgs('--timeout 120'),
    after: [BUILD],
    load: 0.5,
  },
  {
    // It stops and starts the server of DATABASE_URL (SOAK_PG_CTL; skipped without it), so
    // it runs once every other step that uses that server has ended; mostly paced waiting.
    name: 'chaos soak (small)',
    command: process.execPath,
    args: soakArgs('--chaos --kills 1 --pace 20 --deadline 120 --timeout 180'),
    skippedExitCode: SKIPPED_EXIT_CODE,
    after: [BUILD, SOAK, SERVER_TESTS],
    load: 0.5,
  },
  {
    name: 'secrets in the client bundle',
    command: process.execPath,
    args: tsx('tools/secrets/check-client-bundle.ts'),
    after: [BUILD],
  },
  {
    name: 'first-load JS budget',
    command: process.execPath,
    args: tsx('tools/bench/bundle-size.ts', 'build'),
    after: [BUILD],
    load: 0.5,
  },
  {
    // Skipped when the registry has no audit endpoint, unless AUDIT_REQUIRED=1.
    name: 'npm audit (production dependencies)',
    command: process.execPath,
    args: tsx('tools/secrets/audit.ts'),
    env: { ...process.env, AUDIT_SKIPPED_EXIT_CODE: String(SKIPPED_EXIT_CODE) },
    skippedExitCode: SKIPPED_EXIT_CODE,
    load: 0.5,
  },
]

const capacity = Number(process.env.TEST_CAPACITY) || os.availableParallelism()
const results = await runSteps(steps, { cwd: PROJECT_ROOT, capacity })
process.exit(results.some((result) => result.status === 'failed') ? 1 : 0)
