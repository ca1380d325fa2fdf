// `npm run test:changed [ref]`: the edit-test loop for the files not yet committed (or changed
// since `ref`): lint, format, incremental types, `vitest related`, and the integration tests
// that run a changed line of app/ (integration-tests.ts) or import a changed file.
import { existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { PROJECT_ROOT } from '../tests/local-stack/database'
import { git, integrationTestsFor } from './integration-tests'
import { runSteps, type Step } from './steps'

const bin = (name: string) => path.join(PROJECT_ROOT, 'node_modules/.bin', name)
const cache = (name: string) => path.join(PROJECT_ROOT, 'node_modules/.cache/test-changed', name)

const since = process.argv[2]
const changed = [
  ...new Set([
    ...(since ? git('diff', '--name-only', `${since}...HEAD`) : []),
    ...git('diff', '--name-only', 'HEAD'),
    ...git('ls-files', '--others', '--exclude-standard'),
  ]),
].filter((file) => existsSync(path.join(PROJECT_ROOT, file)))

const code = changed.filter((file) => /\.(ts|tsx|js|mjs)$/.test(file))
const nothing = 'no such file changed'
const DATABASE = ['--project', 'database', '--maxWorkers', '2']
const running = integrationTestsFor(since)
const outsideApp = [
  ...new Set([...code.filter((file) => !file.startsWith('app/')), ...(running.related ?? [])]),
]
console.log(`${changed.length} changed file(s)${since ? ` since ${since}` : ''}`)
console.log(
  running.tests
    ? `${running.tests.length} integration test file(s) run the changed app code`
    : `every database and integration test file: ${running.reason}`,
)

const steps: Step[] = [
  {
    // By imports each of them reaches nearly all of app/: the map says which run what.
    name: 'integration tests of the changed code',
    command: bin('vitest'),
    args: running.tests
      ? [
          ...['related', '--run', '--passWithNoTests', ...DATABASE],
          ...['--exclude', 'tests/db/**', '--exclude', 'tests/setup/**'],
          ...outsideApp,
          ...running.tests,
        ]
      : ['run', ...DATABASE],
    skip: !running.tests || running.tests.length || outsideApp.length ? undefined : nothing,
  },
  {
    name: 'lint (changed files)',
    command: bin('eslint'),
    args: ['--cache', '--cache-location', cache('eslint'), '--no-warn-ignored', ...code],
    skip: code.length ? undefined : nothing,
  },
  {
    name: 'format (changed files)',
    command: bin('prettier'),
    args: ['--check', '--ignore-unknown', ...changed],
    skip: changed.length ? undefined : nothing,
    load: 0.5,
  },
  {
    name: 'types (incremental)',
    command: bin('tsc'),
    args: ['--incremental', '--tsBuildInfoFile', cache('tsconfig.tsbuildinfo')],
    skip: code.length ? undefined : nothing,
  },
  {
    name: 'vitest (tests related to the changed files, but the integration tests)',
    command: bin('vitest'),
    args: [
      ...['related', '--run', '--passWithNoTests', '--exclude', 'tests/integration/**'],
      ...code,
      ...(changed.some((file) => file.endsWith('.md')) ? ['tests/docs/doc-paths.test.ts'] : []),
    ],
    skip: changed.length ? undefined : nothing,
  },
]

const results = await runSteps(steps, { cwd: PROJECT_ROOT, capacity: os.availableParallelism() })
process.exit(results.some((result) => result.status === 'failed') ? 1 : 0)
