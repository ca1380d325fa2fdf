// Which integration test files run changed app code (by imports each reaches nearly all of
// it): a changed line selects the files that ran the innermost function around it, or at the
// top level those that loaded the module, from tests/functions-run.txt (test-map.ts):
// `commit <sha>`, `test <n> <file>` lines, then `<app file> <loaded by> <first>-<last>:<ran by>…`.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

import { PROJECT_ROOT } from '../tests/local-stack/database'

export const FUNCTIONS_RUN_FILE = 'tests/functions-run.txt'

type Functions = { start: number; end: number; ran: number[] }[]
export interface FunctionsRun {
  commit: string
  tests: string[]
  files: Map<string, { loaded: number[]; functions: Functions }>
}

const numbers = (list: number[]) => {
  const parts: string[] = []
  for (let i = 0; i < list.length; i++) {
    let j = i
    while (list[j + 1] === list[j] + 1) j++
    parts.push(j > i ? `${list[i]}-${list[j]}` : `${list[i]}`)
    i = j
  }
  return parts.join(',')
}

const parseNumbers = (text: string) =>
  text
    .split(',')
    .filter(Boolean)
    .flatMap((part) => {
      const [first, last = first] = part.split('-').map(Number)
      return Array.from({ length: last - first + 1 }, (_, i) => first + i)
    })

export function formatFunctionsRun(run: FunctionsRun, header: string[]): string {
  const lines = [...header.map((line) => `# ${line}`), `commit ${run.commit}`]
  run.tests.forEach((test, index) => lines.push(`test ${index} ${test}`))
  for (const [file, { loaded, functions }] of [...run.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const entries = functions.map(({ start, end, ran }) => `${start}-${end}:${numbers(ran)}`)
    lines.push([file, numbers(loaded), ...entries].join(' '))
  }
  return `${lines.join('\n')}\n`
}

export function parseFunctionsRun(text: string): FunctionsRun {
  const run: FunctionsRun = { commit: '', tests: [], files: new Map() }
  for (const line of text.split('\n')) {
    const [first, ...rest] = line.split(' ')
    if (!first || first === '#') continue
    if (first === 'commit') run.commit = rest[0]
    else if (first === 'test') run.tests[Number(rest[0])] = rest[1]
    else {
      const functions = rest.slice(1).map((entry) => {
        const [lines, ran] = entry.split(':')
        const [start, end] = lines.split('-').map(Number)
        return { start, end, ran: parseNumbers(ran) }
      })
      run.files.set(first, { loaded: parseNumbers(rest[0]), functions })
    }
  }
  return run
}

/** The test files that ran these lines of an app file at the map's commit; null: unknown file. */
export function testsRunningLines(run: FunctionsRun, file: string, lines: number[]) {
  const entry = run.files.get(file)
  if (!entry) return null
  const selected = new Set<number>()
  for (const line of lines) {
    const around = entry.functions.filter(({ start, end }) => start <= line && line <= end)
    const innermost = around.sort((a, b) => a.end - a.start - (b.end - b.start))[0]
    for (const index of innermost ? innermost.ran : entry.loaded) selected.add(index)
  }
  return [...selected].map((index) => run.tests[index])
}

export const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean)

/** Changed lines per file, by their numbers on one side of a `git diff -U0`. */
function diffLines(args: string[], side: 'old' | 'new', into: Map<string, number[]>) {
  let file = ''
  for (const line of git('diff', '-U0', '--no-renames', ...args)) {
    if (line.startsWith(side === 'old' ? '--- ' : '+++ '))
      file = /^.{4}[ab]\/(.*)$/.exec(line)?.[1] ?? ''
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line)
    if (!hunk || !file) continue
    const [start, count] = side === 'old' ? [hunk[1], hunk[2]] : [hunk[3], hunk[4]]
    const first = Number(start)
    const length = count === undefined ? 1 : Number(count)
    // Nothing on this side (lines added or removed between two): both neighbours.
    const lines = length ? Array.from({ length }, (_, i) => first + i) : [first, first + 1]
    into.set(file, [...(into.get(file) ?? []), ...lines])
  }
}

/** A change no integration test can feel. */
const neutral = (file: string) =>
  /\.md$/.test(file) ||
  /^(tools|tests\/(e2e|docs|config))\//.test(file) ||
  /^app\/.*\.test\.tsx?$/.test(file) ||
  file === FUNCTIONS_RUN_FILE

/**
 * The integration test files that run what changed since the map's commit (and `since`), or
 * null for all when the map cannot say (a migration, a setting, a new app file): `reason`.
 */
export function integrationTestsFor(since?: string): {
  tests: string[] | null
  /** Changed modules outside app/ (tests, their support, the stand-ins): `vitest related`'s. */
  related?: string[]
  reason?: string
} {
  const mapFile = path.join(PROJECT_ROOT, FUNCTIONS_RUN_FILE)
  if (!existsSync(mapFile)) return { tests: null, reason: `there is no ${FUNCTIONS_RUN_FILE}` }
  const run = parseFunctionsRun(readFileSync(mapFile, 'utf8'))
  const atCommit = (file: string) => {
    const object = `${run.commit}:${file}`
    return spawnSync('git', ['cat-file', '-e', object], { cwd: PROJECT_ROOT }).status === 0
  }
  if (!atCommit('package.json'))
    return { tests: null, reason: `the map's commit ${run.commit} is not in this clone` }
  const base = since && git('merge-base', since, 'HEAD')[0]
  const lines = new Map<string, number[]>()
  if (base) diffLines([base, run.commit], 'new', lines)
  diffLines([run.commit], 'old', lines)
  const files = new Set([
    ...(base ? git('diff', '--name-only', '--no-renames', base, run.commit) : []),
    ...git('diff', '--name-only', '--no-renames', run.commit),
    ...git('ls-files', '--others', '--exclude-standard'),
  ])
  const tests = new Set<string>()
  const related = new Set<string>()
  for (const file of files) {
    if (neutral(file)) continue
    if (!file.startsWith('app/') && /\.(ts|tsx|js|mjs)$/.test(file)) {
      if (existsSync(path.join(PROJECT_ROOT, file))) related.add(file)
      continue
    }
    const running = file.startsWith('app/')
      ? (testsRunningLines(run, file, lines.get(file) ?? []) ?? (atCommit(file) ? [] : null))
      : null
    if (!running) return { tests: null, reason: `${file} changed, which the map does not cover` }
    for (const test of running) tests.add(test)
  }
  return { tests: [...tests].sort(), related: [...related] }
}
