/**
 * `npm test`: every check, in parallel where the cores allow (tools/steps.ts holds each
 * step's output until it ends and prints a summary with times).
 *
 * - At once: the production build, lint, format, types, dead and duplicate code, import cycles.
 * - The vitest suites, each test on the engine that matters for it: with DATABASE_URL set,
 *   the database and integration tests (and the stack's database module) on that
 *   PostgreSQL server, where production runs them (with the signed-in pages' statement
 *   counts, where it loads pg_stat_statements), and everything else on embedded PGlite,
 *   the development database; without it, all of them on PGlite.
 * - On the build: the browser tests in Chromium, a small soak, the chaos soak (after every
 *   other user of the PostgreSQL server, which it restarts), the first-load JS budget.
 * - The scan of a canary build for server secrets, `npm audit` of the production
 *   dependencies.
 *
 * Every step runs even if another failed; the exit code says whether all passed (a step may
 * report itself skipped at run time, which is not a failure). TEST_CAPACITY overrides how
 * many cores' worth of steps run at once (default: the machine's cores).
 */
import os from 'node:os'
import path from 'node:path'

import { PROJECT_ROOT } from '../tests/local-stack/database'
import { runSteps, type Step } from './steps'

const bin = (name: string) => path.join(PROJECT_ROOT, 'node_modules/.bin', name)
const withoutDatabaseUrl = { ...process.env, DATABASE_URL: '' }
const serverUrl = process.env.DATABASE_URL

/**
 * The vitest projects (vite.config.ts): `database` (tests/db, tests/integration) runs on the
 * PostgreSQL server when there is one, where production runs those queries; the stack's
 * database module runs on both engines, each of which it supports.
 */
const SERVER_TESTS_ARGS = [
  ...['--project', 'database', '--project', 'local-stack'],
  ...['tests/db', 'tests/integration', 'tests/setup', 'tests/local-stack/database'],
]
const PGLITE_PROJECTS = serverUrl ? ['--project', 'unit', '--project', 'local-stack'] : []

/** Exit code with which a step says it could not run here (reported as skipped, not failed). */
const SKIPPED_EXIT_CODE = 75

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
    // The soak test at a small size, on the build just made (full size: npm run soak).
    name: SOAK,
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      'tools/soak/run.ts',
      '--skip-build',
      '--build-dir',
      'build',
      '--users',
      '40',
      '--events',
      '600',
      '--timeout',
      '120',
    ],
    after: [BUILD],
    // Under half a minute, mostly waiting on the app and the stack.
    load: 0.5,
  },
  {
    // The chaos soak at a small size: two production instances on the PostgreSQL server, a
    // kill, a database restart, provider faults, a graceful stop (full size: npm run soak --
    // --chaos; docs/operations.md). It stops and starts the server of DATABASE_URL through
    // SOAK_PG_CTL, so it runs only where that is set (.ci/run sets it; otherwise skipped),
    // and only once every other step that uses that server has ended.
    name: 'chaos soak (small)',
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      'tools/soak/run.ts',
      '--chaos',
      '--skip-build',
      '--build-dir',
      'build',
      '--users',
      '40',
      '--events',
      '600',
      '--kills',
      '1',
      '--pace',
      '20',
      '--deadline',
      '120',
      '--timeout',
      '180',
    ],
    skippedExitCode: SKIPPED_EXIT_CODE,
    after: [BUILD, SOAK, SERVER_TESTS],
    // Paced: most of its time goes to kills, restarts and the deadline of each phase.
    load: 0.5,
  },
  {
    // The client bundle holds no server secret (see tools/secrets/check-client-bundle.ts).
    name: 'secrets in the client bundle',
    command: process.execPath,
    args: ['--import', 'tsx', 'tools/secrets/check-client-bundle.ts'],
    after: [BUILD],
  },
  {
    // First-load JS of every page within its budget (see tools/bench/bundle-size.ts).
    name: 'first-load JS budget',
    command: process.execPath,
    args: ['--import', 'tsx', 'tools/bench/bundle-size.ts', 'build'],
    after: [BUILD],
    load: 0.5,
  },
  {
    // No high or critical advisory in production dependencies (see tools/secrets/audit.ts).
    // When the registry cannot answer npm's audit endpoint the step is reported as skipped;
    // AUDIT_REQUIRED=1 makes that a failure.
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
