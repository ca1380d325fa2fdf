// `npm run test:map`: the integration tests with each file's app/ functions recorded
// (record-functions.ts), into tests/functions-run.txt at the commit they ran on.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { PROJECT_ROOT } from '../tests/local-stack/database'
import { formatFunctionsRun, FUNCTIONS_RUN_FILE, type FunctionsRun } from './integration-tests'
import type { FileRun } from './record-functions'

const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' })

const MAPPED = ['app', 'tests', 'supabase', '*.js', '*.ts', '*.json']
const uncommitted = git('status', '--porcelain', '--', ...MAPPED)
  .split('\n')
  .filter((line) => line && !line.endsWith(FUNCTIONS_RUN_FILE) && !/ tools\//.test(line))
if (uncommitted.length) {
  console.error(
    `Commit these first (the map names the commit it ran on):\n${uncommitted.join('\n')}`,
  )
  process.exit(1)
}

const commit = git('rev-parse', 'HEAD').trim()
const directory = mkdtempSync(path.join(os.tmpdir(), 'functions-run-'))
const vitest = spawnSync(
  path.join(PROJECT_ROOT, 'node_modules/.bin/vitest'),
  // Two at a time: the tests mostly wait on the stack and the database.
  ['run', '--project', 'database', '--maxWorkers', '2', 'tests/integration'],
  { cwd: PROJECT_ROOT, stdio: 'inherit', env: { ...process.env, FUNCTIONS_RUN_DIR: directory } },
)
if (vitest.status !== 0) {
  console.error('Some tests failed: the map is written from a passing run only.')
  process.exit(1)
}

type Run = { testFile: string; files: Record<string, FileRun> }
const runs = readdirSync(directory).map(
  (name) => JSON.parse(readFileSync(path.join(directory, name), 'utf8')) as Run,
)
rmSync(directory, { recursive: true })
runs.sort((a, b) => (a.testFile < b.testFile ? -1 : 1))
const map: FunctionsRun = { commit, tests: runs.map((run) => run.testFile), files: new Map() }
const ran = new Map<string, Map<string, Set<number>>>()
runs.forEach((run, index) => {
  for (const [file, { ran: lines, idle }] of Object.entries(run.files)) {
    const entry = map.files.get(file) ?? { loaded: [], functions: [] }
    entry.loaded.push(index)
    map.files.set(file, entry)
    const functions = ran.get(file) ?? new Map<string, Set<number>>()
    ran.set(file, functions)
    for (const key of idle) functions.set(key, functions.get(key) ?? new Set())
    for (const key of lines) functions.set(key, (functions.get(key) ?? new Set()).add(index))
  }
})
for (const [file, functions] of ran) {
  map.files.get(file)!.functions = [...functions]
    .map(([key, tests]) => {
      const [start, end] = key.split('-').map(Number)
      return { start, end, ran: [...tests].sort((a, b) => a - b) }
    })
    .sort((a, b) => a.start - b.start || b.end - a.end)
}
writeFileSync(
  path.join(PROJECT_ROOT, FUNCTIONS_RUN_FILE),
  formatFunctionsRun(map, [
    'The app/ functions (first-last line) each integration test file runs.',
    'Written by `npm run test:map`; read by `npm run test:changed` (tools/integration-tests.ts).',
  ]),
)
console.log(`${FUNCTIONS_RUN_FILE}: ${runs.length} test files, ${map.files.size} app files`)
