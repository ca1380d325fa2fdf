/**
 * The integration test files that exercise changed app modules through the server build,
 * which `vitest related` cannot see (they reach the app over HTTP, not by import): every
 * route whose module imports a changed file, directly or not (madge's graph of app/), then
 * the test files that reach one of those routes (tests/integration/routes-reached.ts, which
 * the harness keeps true as the tests run).
 */
import { execFileSync } from 'node:child_process'
import path from 'node:path'

import { ROUTES_REACHED } from '../tests/integration/routes-reached'
import { PROJECT_ROOT } from '../tests/local-stack/database'

/** app/ files (relative to app/) and the app/ files each imports. */
export function appImportGraph(): Record<string, string[]> {
  const madge = path.join(PROJECT_ROOT, 'node_modules/.bin/madge')
  const args = ['--json', '--no-spinner', '--extensions', 'ts,tsx', '--ts-config', 'tsconfig.json']
  return JSON.parse(
    execFileSync(madge, [...args, 'app'], { cwd: PROJECT_ROOT, encoding: 'utf8' }),
  ) as Record<string, string[]>
}

/** The route id (as in ROUTES_REACHED) of an app/ file, if it is one; the renderer's is the root's. */
export function routeIdOf(file: string): string | null {
  if (file === 'root.tsx' || file === 'entry.server.tsx') return 'root'
  return file.startsWith('routes/') ? file.replace(/\.tsx?$/, '') : null
}

export function integrationTestsFor(changed: string[], graph = appImportGraph()): string[] {
  const importers = new Map<string, string[]>()
  for (const [file, imports] of Object.entries(graph)) {
    for (const imported of imports)
      importers.set(imported, [...(importers.get(imported) ?? []), file])
  }
  const affected = new Set(
    changed.filter((file) => file.startsWith('app/')).map((file) => path.relative('app', file)),
  )
  // A Set visits what is added while it is iterated: every importer, however far up.
  for (const file of affected)
    for (const importer of importers.get(file) ?? []) affected.add(importer)
  const routes = new Set([...affected].map(routeIdOf))
  return Object.entries(ROUTES_REACHED)
    .filter(([, reached]) => reached.some((id) => routes.has(id)))
    .map(([file]) => file)
}
