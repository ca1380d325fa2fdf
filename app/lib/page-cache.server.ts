import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EntryContext } from '@remix-run/node'
import { ExpiringCache } from './expiring-cache'
import { logger } from './logger.server'
import { requestContext } from './request-context.server'
import type { PageHandle } from './page-handle'
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
 * - a render is stored only when the renderer vouched for it (`markSharedRender`: the route
 *   opted in, the root loader found no user, the status is 200) and the answer carries no
 *   `Set-Cookie`, is HTML, is complete and under `MAX_BODY_BYTES`;
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
  /** Every other header of the answer (not those the connection or compression sets). */
  headers: [string, string | number | string[]][]
}

/** Headers that belong to one transmission, set again by Node and `compression` on a hit. */
const PER_ANSWER_HEADERS = new Set([
  'date',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'vary',
  'content-security-policy',
  'server-timing',
])

/**
 * Called by the renderer (`entry.server.tsx`) once it knows the page: marks this request's
 * render as one every anonymous visitor may get, with the nonce it used, when the page's route
 * opted in, nobody is signed in and the status is 200. Outside the production server (no
 * request store) it does nothing.
 */
export function markSharedRender(
  context: EntryContext,
  status: number,
  signedIn: boolean,
  nonce: string,
) {
  const store = requestContext.getStore()
  if (!store || status !== 200 || signedIn) return
  const leaf = context.staticHandlerContext.matches.at(-1)
  const handle = leaf ? (context.routeModules[leaf.route.id]?.handle as PageHandle) : undefined
  if (handle?.sharedAnonymousRender !== true) return
  store.sharedRenderNonce = nonce
}

/** Withdraws the mark: the render failed after its head was sent. */
export function unmarkSharedRender() {
  const store = requestContext.getStore()
  if (store) store.sharedRenderNonce = undefined
}

export class AnonymousPageCache {
  private readonly pages: ExpiringCache<StoredPage>

  constructor(
    maxEntries = MAX_ENTRIES,
    private readonly ttlMs = TTL_MS,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.pages = new ExpiringCache(maxEntries, now)
  }

  /**
   * Answers `req` from the cache, or calls `render` (Remix) and keeps what it rendered when
   * the renderer marked it shared. Must run inside `requestContext` (server.js).
   */
  serve(req: IncomingMessage, res: ServerResponse, render: () => void) {
    const key = cacheKey(req)
    if (key === null) return render()
    const page = this.pages.get(key)
    if (page) return send(res, page)
    const store = requestContext.getStore()
    if (!store) return render()
    capture(
      res,
      () => store.sharedRenderNonce !== undefined,
      (body) => {
        const nonce = store.sharedRenderNonce
        if (!nonce || res.statusCode !== 200 || res.hasHeader('set-cookie')) return
        if (!String(res.getHeader('content-type') ?? '').startsWith('text/html')) return
        const csp = res.getHeader('content-security-policy')
        if (typeof csp !== 'string' || !csp.includes(`'nonce-${nonce}'`)) return
        const headers: StoredPage['headers'] = []
        for (const [name, value] of Object.entries(res.getHeaders())) {
          if (value !== undefined && !PER_ANSWER_HEADERS.has(name)) headers.push([name, value])
        }
        this.pages.set(
          key,
          { body: body.split(nonce), csp: csp.split(nonce), headers },
          this.now() + this.ttlMs,
        )
      },
    )
    render()
  }

  get size() {
    return this.pages.size
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

function send(res: ServerResponse, page: StoredPage) {
  const nonce = createNonce()
  res.statusCode = 200
  for (const [name, value] of page.headers) res.setHeader(name, value)
  res.setHeader('Content-Security-Policy', page.csp.join(nonce))
  // Says where the answer came from (browser dev tools show it; the tests read it).
  res.setHeader('Server-Timing', 'page-cache;desc="hit"')
  res.end(page.body.join(nonce))
}

/**
 * Collects what the route writes (as it passes on, unchanged) and hands the whole body to
 * `done` once the answer has finished; nothing when it grew past MAX_BODY_BYTES or the
 * connection closed before the end. An answer that is not a marked render when it starts to
 * be written (an API, a redirect, a page that did not opt in) is left alone from then on: the
 * original `write` and `end` are put back and nothing is kept.
 */
function capture(res: ServerResponse, marked: () => boolean, done: (body: string) => void) {
  const chunks: Buffer[] = []
  let size = 0
  let overflow = false
  let capturing: boolean | undefined
  const write = res.write
  const end = res.end
  const keep = (chunk: unknown, encoding: unknown) => {
    if (capturing === undefined) {
      capturing = marked()
      if (!capturing) {
        res.write = write
        res.end = end
        return
      }
      res.once('finish', () => {
        if (overflow) return
        try {
          done(Buffer.concat(chunks).toString('utf8'))
        } catch (error) {
          logger.error({ err: error }, 'anonymous page cache: could not keep a render')
        }
      })
    }
    if (!capturing || overflow) return
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array)
    size += buffer.length
    if (size > MAX_BODY_BYTES) overflow = true
    else chunks.push(buffer)
  }
  res.write = function (
    this: ServerResponse,
    chunk: unknown,
    encoding?: unknown,
    ...rest: unknown[]
  ) {
    keep(chunk, encoding)
    return (write as (...args: unknown[]) => boolean).call(this, chunk, encoding, ...rest)
  } as ServerResponse['write']
  res.end = function (
    this: ServerResponse,
    chunk?: unknown,
    encoding?: unknown,
    ...rest: unknown[]
  ) {
    keep(chunk, encoding)
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, encoding, ...rest)
  } as ServerResponse['end']
}

/** The production server's cache (server.js). */
const anonymousPages = new AnonymousPageCache()

/** server.js: `anonymousPageCache(req, res, () => handle(req, res, next))`. */
export function anonymousPageCache(req: IncomingMessage, res: ServerResponse, render: () => void) {
  anonymousPages.serve(req, res, render)
}
