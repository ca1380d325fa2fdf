import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'

import type { EntryContext } from '@remix-run/node'

import type { PageHandle } from '~/lib/pages/page-handle'

import { ExpiringCache } from './expiring-cache'
import { requestContext } from './request-context.server'
import { createNonce } from './security-headers.server'

/**
 * The anonymous page cache (docs/decisions/0014-anonymous-page-cache.md): a page whose route
 * declares `handle: PageHandle = { sharedAnonymousRender: true }` renders the same HTML for every visitor
 * without a cookie (the landing page, pricing, the contact form), so the production server
 * keeps that render for a minute and answers the next such visitors with it, without running
 * Remix, the loaders or React again (docs/performance.md, "Where the time goes").
 *
 * What keeps it safe:
 * - only a `GET` of a document without any `Cookie` or `Authorization` header is served from
 *   it or stored in it; anything else (a signed-in visitor, a data request of a client-side
 *   navigation, a post) is rendered as before;
 * - a render is stored only when the renderer offered it (`offerSharedRender`: the route
 *   opted in, the root loader found no user, the status is 200, no `Set-Cookie`) and its
 *   stream ended whole, under `MAX_BODY_BYTES`: the renderer's own stream is listened to,
 *   Node's response is left as it is;
 * - every answer gets its own CSP nonce: the stored HTML and CSP are kept split at the
 *   render's nonce (128 random bits, so it occurs nowhere else) and joined with a fresh one;
 * - the key is the path and query as sent (pricing reads `?canceled=true`); at most
 *   `MAX_ENTRIES` keys, the oldest going first, so odd queries cost renders, never memory.
 */
const MAX_ENTRIES = 50
const TTL_MS = 60_000
const MAX_BODY_BYTES = 512 * 1024
const MAX_KEY_LENGTH = 1024

interface StoredPage {
  /** The HTML, split at the render's nonce. */
  body: string[]
  /** The CSP, split at the render's nonce. */
  csp: string[]
  /** Every other header of the render (the request policy adds its own to every answer). */
  headers: [string, string][]
}

/** Headers that belong to one transmission, or to one answer's nonce. */
const PER_ANSWER_HEADERS = new Set(['content-length', 'content-security-policy', 'server-timing'])

/** What the renderer knows of a page when it starts to stream it. */
export interface RenderedPage {
  context: EntryContext
  status: number
  signedIn: boolean
  nonce: string
  headers: Headers
}

/**
 * Called by the renderer (`entry.server.tsx`) with the stream it pipes the page into: when
 * the request may be served from the cache (the cache looked it up and found nothing), the
 * page's route opted in, nobody is signed in, the status is 200 and no cookie is set, the
 * cache listens to the stream beside the answer and keeps the page once it has ended whole
 * (not when the client left, the render failed after its head, or it grew past
 * MAX_BODY_BYTES). Outside the production server (no request store) it does nothing.
 */
export function offerSharedRender(body: Readable, page: RenderedPage) {
  const { nonce } = page
  const offer = requestContext.getStore()?.pageCache
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
  const offer = requestContext.getStore()?.pageCache
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

  /**
   * Answers `req` from the cache, or calls `render` (Remix), telling the renderer through the
   * request store that it may offer this page (`offerSharedRender`). Must run inside
   * `requestContext` (server-app.js).
   */
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
    const store = requestContext.getStore()
    if (store) store.pageCache = { key, cache: this }
    render()
  }

  keep(key: string, page: StoredPage) {
    this.set(key, page, this.now() + this.ttlMs)
  }
}

/** The cache key of a request that may be served from the cache, else null. */
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

/** The production server's cache (server-app.js: `anonymousPageCache.serve(req, res, render)`). */
export const anonymousPageCache = new AnonymousPageCache()
