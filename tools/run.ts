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

/** The soak on the build just made, at a small size (full size: npm run soak). */
const soakArgs = (flags: string) =>
  `--import tsx tools/soak/run.ts --skip-build --build-dir build --users 40 --events 600 ${flags}`.split(
    ' ',
  )

const BUILD = 'build'
const SERVER_TESTS = 'database and integration tests (PostgreSQL server)'
const SOAK = 'soak (small)'

const steps: Step[] = [
  { name: BUILD, command: bin('remix'), args: ['vite:build'] },
  {
    name: 'browser (Chromium)',
    command: bin('playwright'),
    args: ['test'],
    env: withoutDatabaseUrl,
    after: [BUILD],
    // One worker: it mostly waits (on pages, mails, webhooks), about half a core on average.
    load: 0.5,
  },
  { name: 'lint', command: bin('eslint'), args: ['.'], load: 0.5 },
  { name: 'format', command: bin('prettier'), args: ['--check', '.'], load: 0.5 },
  { name: 'types', command: bin('tsc'), args: [], load: 0.5 },
  // The local stack compiles alone, with its own tsconfig.json (a package of its own).
  {
    name: 'types (local stack)',
    command: bin('tsc'),
    args: ['-p', 'tests/local-stack'],
    load: 0.5,
  },
  // No unused file, export or dependency (knip.json).
  { name: 'dead code (knip)', command: bin('knip'), args: ['--no-progress'], load: 0.5 },
  // No import cycle in app/ (type-only imports count too).
  {
    name: 'import cycles in app/ (madge)',
    command: bin('madge'),
    args: [
      ...['--circular', '--no-spinner', '--extensions', 'ts,tsx', '--ts-config', 'tsconfig.json'],
      'app',
    ],
    load: 0.5,
  },
  // No block of six lines or more repeated in app/ (.jscpd.json).
  { name: 'duplicate code in app/ (jscpd)', command: bin('jscpd'), args: ['--silent'], load: 0.5 },
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
  {
    name: SOAK,
    command: process.execPath,
    args: soakArgs('--timeout 120'),
    after: [BUILD],
    // Under half a minute, mostly waiting on the app and the stack.
    load: 0.5,
  },
  {
    // It stops and starts the server of DATABASE_URL (SOAK_PG_CTL; skipped without it), so
    // it runs once every other step that uses that server has ended.
    name: 'chaos soak (small)',
    command: process.execPath,
    args: soakArgs('--chaos --kills 1 --pace 20 --deadline 120 --timeout 180'),
    skippedExitCode: SKIPPED_EXIT_CODE,
    after: [BUILD, SOAK, SERVER_TESTS],
    // Paced: most of its time goes to kills, restarts and the deadline of each phase.
    load: 0.5,
  },
  {
    name: 'secrets in the client bundle',
    command: process.execPath,
    args: ['--import', 'tsx', 'tools/secrets/check-client-bundle.ts'],
    after: [BUILD],
  },
  {
    name: 'first-load JS budget',
    command: process.execPath,
    args: ['--import', 'tsx', 'tools/bench/bundle-size.ts', 'build'],
    after: [BUILD],
    load: 0.5,
  },
  {
    // Skipped when the registry has no audit endpoint, unless AUDIT_REQUIRED=1.
    name: 'npm audit (production dependencies)',
    command: process.execPath,
    args: ['--import', 'tsx', 'tools/secrets/audit.ts'],
    env: { ...process.env, AUDIT_SKIPPED_EXIT_CODE: String(SKIPPED_EXIT_CODE) },
    skippedExitCode: SKIPPED_EXIT_CODE,
    load: 0.5,
  },
]

const capacity = Number(process.env.TEST_CAPACITY) || os.availableParallelism()
const results = await runSteps(steps, { cwd: PROJECT_ROOT, capacity })
process.exit(results.some((result) => result.status === 'failed') ? 1 : 0)
