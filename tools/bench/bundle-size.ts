// First-load JavaScript of every page, gzip level 9, from a client build's Remix manifest: the
// manifest, the entry and its imports, and the module and imports of each route from the root
// to the page, each file once. Pages: leaf routes whose module is not empty (resource routes
// compile to an empty chunk). `npm run bench:bundle [buildDir]` exits 1 over the budget.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

export const FIRST_LOAD_JS_BUDGET_BYTES = 110 * 1024

interface ManifestRoute {
  id: string
  parentId?: string
  path?: string
  index?: boolean
  module: string
  imports?: string[]
}

interface RemixClientManifest {
  entry: { module: string; imports?: string[] }
  routes: Record<string, ManifestRoute>
}

interface PageWeight {
  route: string
  path: string
  files: string[]
  gzipBytes: number
  rawBytes: number
}

/** Parses `window.__remixManifest={...}`. */
export function parseRemixManifest(source: string): RemixClientManifest {
  const start = source.indexOf('{')
  const end = source.lastIndexOf('}')
  if (start < 0 || end < start) throw new Error('not a Remix client manifest')
  return JSON.parse(source.slice(start, end + 1)) as RemixClientManifest
}

function routeChain(manifest: RemixClientManifest, id: string) {
  const chain: ManifestRoute[] = []
  for (let route: ManifestRoute | undefined = manifest.routes[id]; route;) {
    chain.unshift(route)
    route = route.parentId ? manifest.routes[route.parentId] : undefined
  }
  return chain
}

/** `readAsset`: the bytes of a URL path (`/assets/root-abc.js`); the manifest's own counts too. */
export function weighPages(
  manifest: RemixClientManifest,
  readAsset: (urlPath: string) => Buffer,
  manifestFile?: string,
): PageWeight[] {
  const sizes = new Map<string, { raw: number; gzip: number; empty: boolean }>()
  const sizeOf = (file: string) => {
    let size = sizes.get(file)
    if (!size) {
      const bytes = readAsset(file)
      size = {
        raw: bytes.length,
        gzip: gzipSync(bytes, { level: 9 }).length,
        empty: bytes.toString('utf8').trim() === '',
      }
      sizes.set(file, size)
    }
    return size
  }
  const parents = new Set(Object.values(manifest.routes).map((route) => route.parentId))
  const pages: PageWeight[] = []
  for (const route of Object.values(manifest.routes)) {
    if (parents.has(route.id) || sizeOf(route.module).empty) continue
    const chain = routeChain(manifest, route.id)
    const files = [
      ...new Set([
        ...(manifestFile ? [manifestFile] : []),
        ...[manifest.entry, ...chain].flatMap((link) => [link.module, ...(link.imports ?? [])]),
      ]),
    ]
    const total = (key: 'gzip' | 'raw') => files.reduce((sum, file) => sum + sizeOf(file)[key], 0)
    const path = `/${chain.flatMap((link) => link.path || []).join('/')}`
    pages.push({ route: route.id, path, files, gzipBytes: total('gzip'), rawBytes: total('raw') })
  }
  return pages.sort((a, b) => b.gzipBytes - a.gzipBytes)
}

export function weighBuild(buildDir: string): PageWeight[] {
  const client = path.join(buildDir, 'client')
  const assets = path.join(client, 'assets')
  const manifests = readdirSync(assets).filter((name) => /^manifest-[\w-]+\.js$/.test(name))
  if (manifests.length !== 1)
    throw new Error(`expected one Remix manifest in ${assets}, found ${manifests.length}`)
  const manifestFile = `/assets/${manifests[0]}`
  const manifest = parseRemixManifest(readFileSync(path.join(client, manifestFile), 'utf8'))
  return weighPages(manifest, (urlPath) => readFileSync(path.join(client, urlPath)), manifestFile)
}

export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

/** Prints the table; returns the pages over the budget. */
export function reportBundle(pages: PageWeight[], budget = FIRST_LOAD_JS_BUDGET_BYTES) {
  console.log(`First-load JS per page (gzip level 9; budget ${kb(budget)}):`)
  const width = Math.max(...pages.map((page) => page.path.length))
  for (const page of pages) {
    const mark = page.gzipBytes <= budget ? 'ok  ' : 'OVER'
    console.log(
      `  ${mark} ${page.path.padEnd(width)}  ${kb(page.gzipBytes).padStart(9)} gzip  ${kb(page.rawBytes).padStart(9)} raw  ${page.files.length} files`,
    )
  }
  return pages.filter((page) => page.gzipBytes > budget)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const buildDir = process.argv[2] ?? process.env.BUILD_DIR ?? 'build'
  const over = reportBundle(weighBuild(buildDir))
  if (over.length > 0) {
    console.error(`${over.length} page(s) over the first-load JS budget`)
    process.exit(1)
  }
}
