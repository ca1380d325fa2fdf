/**
 * First-load JavaScript of every page, gzip (level 9), from a client build's Remix manifest
 * (`<build>/client/assets/manifest-*.js`), which lists per route its module and every chunk it
 * imports: the `modulepreload` links and module scripts a server-rendered page loads. A
 * page's first load: the manifest, the client entry and its imports, and the module and
 * imports of every route from the root to the page, each distinct file once. Pages are the
 * leaf routes whose module is not empty (resource routes compile to an empty chunk).
 *
 * CLI: `node --import tsx tools/bench/bundle-size.ts [buildDir]` prints the table and exits 1
 * when a page is over the budget (`npm run bench:bundle` after `npm run build`).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

/** The budget of every page's first-load JavaScript, gzip. */
export const FIRST_LOAD_JS_BUDGET_BYTES = 110 * 1024

interface ManifestRoute {
  id: string
  parentId?: string
  path?: string
  index?: boolean
  module: string
  imports?: string[]
}

export interface RemixClientManifest {
  entry: { module: string; imports?: string[] }
  routes: Record<string, ManifestRoute>
  url?: string
}

export interface PageWeight {
  route: string
  /** The URL pattern of the page, e.g. `/dashboard/settings/billing`. */
  path: string
  files: string[]
  gzipBytes: number
  rawBytes: number
}

/** Parses `window.__remixManifest={...}` (a JSON object literal). */
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

function urlPattern(chain: ManifestRoute[]) {
  const segments = chain.map((route) => route.path ?? '').filter((segment) => segment !== '')
  return `/${segments.join('/')}`
}

/**
 * Weighs every page of a manifest. `readAsset` returns the bytes of a public URL path such as
 * `/assets/root-abc.js`; `manifestFile` is the manifest's own URL path (counted on every page).
 */
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
  const parents = new Set(
    Object.values(manifest.routes)
      .map((route) => route.parentId)
      .filter(Boolean),
  )
  const pages: PageWeight[] = []
  for (const route of Object.values(manifest.routes)) {
    if (parents.has(route.id)) continue
    if (sizeOf(route.module).empty) continue
    const chain = routeChain(manifest, route.id)
    const files = new Set<string>()
    if (manifestFile) files.add(manifestFile)
    files.add(manifest.entry.module)
    for (const file of manifest.entry.imports ?? []) files.add(file)
    for (const link of chain) {
      files.add(link.module)
      for (const file of link.imports ?? []) files.add(file)
    }
    let gzipBytes = 0
    let rawBytes = 0
    for (const file of files) {
      gzipBytes += sizeOf(file).gzip
      rawBytes += sizeOf(file).raw
    }
    pages.push({ route: route.id, path: urlPattern(chain), files: [...files], gzipBytes, rawBytes })
  }
  return pages.sort((a, b) => b.gzipBytes - a.gzipBytes)
}

/** Weighs the pages of a build directory (`build`, `.build-bench`, …). */
export function weighBuild(buildDir: string): PageWeight[] {
  const client = path.join(buildDir, 'client')
  const assets = path.join(client, 'assets')
  const manifests = readdirSync(assets).filter((name) => /^manifest-[\w-]+\.js$/.test(name))
  if (manifests.length !== 1) {
    throw new Error(`expected one Remix manifest in ${assets}, found ${manifests.length}`)
  }
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
