import { AsyncLocalStorage } from 'node:async_hooks'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'

import type { EntryContext } from '@remix-run/node'

import type { PageHandle } from '~/lib/pages/page-handle'

import { cacheSize, ExpiringCache } from './expiring-cache'
import { createNonce } from './security-headers.server'

/** The anonymous page cache: 8–13× less CPU than a render (docs/performance.md). */
const MAX_ENTRIES = 50
const TTL_MS = 60_000
const MAX_BODY_BYTES = 512 * 1024
const MAX_KEY_LENGTH = 1024

interface StoredPage {
  /** The HTML and the CSP, split at the render's nonce. */
  body: string[]
  csp: string[]
  headers: [string, string][]
}

/** A request that may be kept, under `key`; the renderer adds the `nonce` of a render it offers. */
const offers = new AsyncLocalStorage<{ key: string; cache: AnonymousPageCache; nonce?: string }>()

/** Headers that belong to one transmission, or to one answer's nonce. */
const PER_ANSWER_HEADERS = new Set(['content-length', 'content-security-policy', 'server-timing'])

export interface RenderedPage {
  context: EntryContext
  status: number
  signedIn: boolean
  nonce: string
  headers: Headers
}

/** Offers a page's stream: kept when whole and small, opted in, anonymous, a 200, cookie-free. */
export function offerSharedRender(body: Readable, page: RenderedPage) {
  const { nonce } = page
  const offer = offers.getStore()
  if (!offer || page.status !== 200 || page.signedIn) return
  if (page.headers.has('set-cookie')) return
  const leaf = page.context.staticHandlerContext.matches.at(-1)
  const handle = leaf && (page.context.routeModules[leaf.route.id]?.handle as PageHandle)
  if (handle?.sharedAnonymousRender !== true) return
  const csp = page.headers.get('content-security-policy')
  if (!csp?.includes(`'nonce-${nonce}'`)) return
  offer.nonce = nonce
  const chunks: Buffer[] = []
  let size = 0
  body.on('data', (chunk: Buffer | string) => {
    size += chunk.length
    if (size <= MAX_BODY_BYTES) chunks.push(Buffer.from(chunk))
  })
  body.once('end', () => {
    if (offer.nonce !== nonce || size > MAX_BODY_BYTES) return
    const headers: StoredPage['headers'] = []
    page.headers.forEach((value, name) => {
      if (!PER_ANSWER_HEADERS.has(name)) headers.push([name, value])
    })
    const html = Buffer.concat(chunks).toString('utf8')
    offer.cache.keep(offer.key, { body: html.split(nonce), csp: csp.split(nonce), headers })
  })
}

/** Withdraws the offer: the render failed after its head was sent. */
export function unmarkSharedRender() {
  const offer = offers.getStore()
  if (offer) offer.nonce = undefined
}

export class AnonymousPageCache extends ExpiringCache<StoredPage> {
  constructor(
    maxEntries = MAX_ENTRIES,
    private readonly ttlMs = TTL_MS,
    now = () => Date.now(),
  ) {
    super(maxEntries, now)
  }

  /** Answers `req` from the cache, or calls `render` (Remix), which may offer its page. */
  serve(req: IncomingMessage, res: ServerResponse, render: () => void) {
    const key = cacheKey(req)
    if (key === null) return render()
    const page = this.get(key)
    if (page) {
      const nonce = createNonce()
      res.statusCode = 200
      for (const [name, value] of page.headers) res.setHeader(name, value)
      res.setHeader('Content-Security-Policy', page.csp.join(nonce))
      // Says where the answer came from (browser dev tools show it; the tests read it).
      res.setHeader('Server-Timing', 'page-cache;desc="hit"')
      res.end(page.body.join(nonce))
      return
    }
    offers.run({ key, cache: this }, render)
  }

  keep(key: string, page: StoredPage) {
    this.set(key, page, this.now() + this.ttlMs)
  }
}

function cacheKey(req: IncomingMessage): string | null {
  if (req.method !== 'GET') return null
  if (req.headers.cookie !== undefined || req.headers.authorization !== undefined) return null
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/'
  if (url.length > MAX_KEY_LENGTH || !url.startsWith('/')) return null
  // Client-side navigations fetch `<path>.data` (single fetch); only documents are shared.
  const path = url.split('?', 1)[0]!
  if (path.endsWith('.data') || url.includes('_data=')) return null
  return url
}

export const anonymousPageCache = new AnonymousPageCache(cacheSize('pages', MAX_ENTRIES))
