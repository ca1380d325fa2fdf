// docs/spec-coverage.md cites files, symbols and tests (by kind and name) that all exist.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { PROJECT_ROOT } from '../local-stack/database'

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8')

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name)
    if (entry.isDirectory()) walk(relative, out)
    else out.push(relative)
  }
  return out
}

const sources = ['app', 'supabase', 'server.js', 'server-app.js', 'tools']
  .flatMap((top) => (top.includes('.') ? [top] : walk(top)))
  .filter((file) => /\.(ts|tsx|js|sql|toml)$/.test(file))
const code = sources
  .filter((file) => !/\.test\.tsx?$/.test(file))
  .map(read)
  .join('\n')

/** Where a test of each kind lives. */
const TEST_DIRS: Record<string, string[]> = {
  unit: ['app', 'tools'],
  db: ['tests/db'],
  int: ['tests/integration'],
  e2e: ['tests/e2e'],
}
const testFiles = Object.fromEntries(
  Object.entries(TEST_DIRS).map(([kind, dirs]) => [kind, dirs.flatMap((dir) => walk(dir))]),
)

interface Row {
  line: number
  code: string
  test: string
}

/** The Code and Test cells of every table row. */
export function tableRows(markdown: string): Row[] {
  const rows: Row[] = []
  let columns: string[] | null = null
  markdown.split('\n').forEach((text, index) => {
    if (!text.startsWith('|')) {
      columns = null
      return
    }
    const cells = text
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim())
    if (!columns) {
      columns = cells
      return
    }
    if (cells.every((cell) => /^-+$/.test(cell))) return
    const cell = (name: string) => cells[columns!.indexOf(name)] ?? ''
    rows.push({
      line: index + 1,
      code: cell('Code') + ' ' + cell('The product'),
      test: cell('Test'),
    })
  })
  return rows
}

const spans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map(([, span]) => span)
const FILE = /^[\w./-]+\.(ts|tsx|js|sql|md|toml)$/
/** An identifier, maybe called with literal arguments: `getPolar('invoices')`. */
const SYMBOL = /^[A-Za-z_]\w*(\([^)]*\))?$/

/** What a row cites that the repository does not have. */
export function missingCitations(row: Row): string[] {
  const missing: string[] = []
  for (const span of spans(row.code)) {
    if (FILE.test(span)) {
      const found = span.includes('/')
        ? sources.includes(span) || walk(path.dirname(span)).includes(span)
        : sources.some((file) => path.basename(file) === span)
      if (!found) missing.push(span)
    } else if (SYMBOL.test(span)) {
      const pattern = new RegExp(`(^|[^\\w])${span.replace(/[()'.]/g, '\\$&')}`)
      if (!pattern.test(code)) missing.push(span)
    }
  }
  // `int stripe-webhook.test.ts "created upserts the row", ...; e2e auth.spec.ts`
  for (const part of row.test.split(/;|(?=\b(?:unit|db|int|e2e)\b\s+`)/)) {
    const kind = /\b(unit\/int|unit|db|int|e2e)\b/.exec(part)?.[1]
    let file: string | undefined
    for (const [, name, quoted] of part.matchAll(/`([^`]+)`|"([^"]+)"/g)) {
      if (name !== undefined) {
        if (!/\.(test|spec)\.tsx?$/.test(name)) continue
        const kinds = kind === 'unit/int' ? ['unit', 'int'] : kind ? [kind] : []
        file = kinds
          .flatMap((each) => testFiles[each])
          .find((candidate) => candidate === name || candidate.endsWith(`/${name}`))
        if (!file) missing.push(`${kind ?? '?'} ${name}`)
      } else if (file) {
        const text = read(file)
        const words = quoted.split('…').map((word) => word.trim())
        let at = 0
        for (const word of words) {
          at = text.indexOf(word, at)
          if (at < 0) break
        }
        if (at < 0) missing.push(`${file}: "${quoted}"`)
      }
    }
  }
  return missing
}

const rows = tableRows(read('docs/spec-coverage.md'))

describe('docs/spec-coverage.md cites only what exists', () => {
  it('reads its tables', () => {
    expect(rows.length).toBeGreaterThan(60)
  })

  it.each(rows.map((row) => [row.line, row] as const))('line %i', (_, row) => {
    expect(missingCitations(row)).toEqual([])
  })

  it('catches a missing file, symbol, test file and test name', () => {
    const [row] = tableRows(
      [
        '| Rule | Code | Test |',
        '| --- | --- | --- |',
        '| r | `app/no-such.server.ts`, `getPolar(\'api\')`, `applyStripeEvent` | int `stripe-webhook.test.ts` "no such test"; e2e `nowhere.spec.ts` |',
      ].join('\n'),
    )
    expect(missingCitations(row)).toEqual([
      'app/no-such.server.ts',
      "getPolar('api')",
      'tests/integration/stripe-webhook.test.ts: "no such test"',
      'e2e nowhere.spec.ts',
    ])
  })
})
