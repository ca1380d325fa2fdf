// Every file a document names (a code span that looks like a path, a relative link) exists.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { PROJECT_ROOT } from '../local-stack/database'

const SKIPPED_DIRS = new Set([
  'node_modules',
  '.git',
  'build',
  'bench-results',
  'test-results',
  'playwright-report',
  '.data',
])

/** Outputs of builds and runs: documents may name them, a fresh clone does not have them. */
const GENERATED =
  /^(build|\.build-[\w-]+|bench-results|\.data|\.vite|test-results|playwright-report)\//

const PATH_LIKE = /^[\w.@$-]+(\/[\w.@$[\]-]+)*\/?$/
const FILE_EXTENSION = /\.(ts|tsx|js|mjs|cjs|sql|md|json|toml|html|css|yml|yaml)$/

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.build-') || SKIPPED_DIRS.has(entry.name)) continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) walk(full, out)
    else out.push(full)
  }
  return out
}

const files = walk(PROJECT_ROOT)
const relativeFiles = files.map((file) => path.relative(PROJECT_ROOT, file))
const basenames = new Set(relativeFiles.map((file) => path.basename(file)))
const documents = relativeFiles.filter((file) => file.endsWith('.md'))

function exists(relative: string): boolean {
  try {
    statSync(path.join(PROJECT_ROOT, relative))
    return true
  } catch {
    return false
  }
}

/** The repository paths a document names that do not exist. */
export function missingPaths(document: string, text: string): string[] {
  const missing: string[] = []
  const docDir = path.dirname(document)
  const prose = text.replace(/```[\s\S]*?```/g, '')

  for (const [, span] of prose.matchAll(/`([^`\n]+)`/g)) {
    const name = span.trim()
    // HTTP paths (`/auth/v1/...`) and suffixes (`.server.ts`) are not repository paths.
    if (!PATH_LIKE.test(name) || /^[/.][^/]*$|^\//.test(name) || GENERATED.test(name)) continue
    const isDir = name.endsWith('/')
    if (!isDir && !FILE_EXTENSION.test(name)) continue
    if (!name.includes('/')) {
      if (!basenames.has(name)) missing.push(name)
      continue
    }
    const fromRoot = path.normalize(name)
    const fromDoc = path.normalize(path.join(docDir, name))
    const outside = fromRoot.startsWith('..') && fromDoc.startsWith('..')
    if (outside || (!exists(fromRoot) && !exists(fromDoc))) missing.push(name)
  }

  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(https?:|mailto:|#)/.test(target)) continue
    const file = decodeURIComponent(target.split('#')[0])
    const resolved = path.normalize(path.join(docDir, file))
    if (resolved.startsWith('..') || GENERATED.test(resolved) || !exists(resolved))
      missing.push(target)
  }
  return missing
}

describe('documents name only files that exist', () => {
  it('finds the documents', () => {
    expect(documents).toContain('README.md')
    expect(documents.some((doc) => doc.startsWith('docs/decisions/'))).toBe(true)
  })

  it.each(documents)('%s', (document) => {
    const text = readFileSync(path.join(PROJECT_ROOT, document), 'utf8')
    expect(missingPaths(document, text)).toEqual([])
  })

  it('catches a missing file, a bare name, a broken link and a path outside the repository', () => {
    const text = [
      'See `app/lib/raw-body.server.ts` and `no-such-module.ts`.',
      'Read [the guide](docs/missing.md#top) and `../shared/spec/interface.md`.',
      'Fine: `app/root.tsx`, `root.tsx`, [arch](docs/architecture.md), `build/server/index.js`.',
    ].join('\n')
    expect(missingPaths('README.md', text)).toEqual([
      'app/lib/raw-body.server.ts',
      'no-such-module.ts',
      '../shared/spec/interface.md',
      'docs/missing.md#top',
    ])
  })
})

/** The folders of `dir` (relative to the project) that its README's tables do not name. */
export function unmappedFolders(dir: string, readme: string): string[] {
  const named = new Set([...readme.matchAll(/^\|\s*`([^`]+)\/`/gm)].map(([, name]) => name))
  return readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !named.has(entry.name))
    .map((entry) => entry.name)
}

describe('the maps of tests/ and tools/ name every folder', () => {
  it.each(['tests', 'tests/local-stack', 'tools'])('%s/README.md', (dir) => {
    const readme = readFileSync(path.join(PROJECT_ROOT, dir, 'README.md'), 'utf8')
    expect(unmappedFolders(dir, readme)).toEqual([])
  })

  it('notices a folder its README does not list', () => {
    expect(unmappedFolders('tests', '| `db/` | schema |\n')).toContain('integration')
  })
})
