// The app's request stack around Remix: what `server.js` serves in production and what the
// integration tests run (docs/decisions/0002-server-and-request-policy.md). Plain JavaScript, so
// production needs no build step or TypeScript runtime for it.
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'

import { createRequestHandler } from '@remix-run/express'
import compression from 'compression'
import express from 'express'

/** The most of an unread body that is read and dropped after the answer, to keep the connection. */
const UNREAD_BODY_MAX_BYTES = 1024 * 1024
/** How long a connection closed on a long unread body is still read from (and dropped). */
const LINGER_MS = 2000

/**
 * An answer that leaves before its request's body has arrived (413, 429, 403): closing while
 * data arrives makes the kernel reset, which can destroy the answer before the client reads
 * it. So the rest is read and dropped, the connection kept up to UNREAD_BODY_MAX_BYTES; past
 * that, a lingering close (ended, still drained for LINGER_MS).
 * @type {import('express').RequestHandler}
 */
function settleUnreadBody(req, res, next) {
  const chunked = req.headers['transfer-encoding'] !== undefined
  const declared = Number(req.headers['content-length'])
  if (!chunked && !(declared > 0)) return next()
  res.once('finish', () => {
    if (req.complete) return
    const socket = req.socket
    const linger = () => {
      if (socket.writableEnded) return
      socket.end()
      setTimeout(() => socket.destroy(), LINGER_MS).unref()
    }
    // Remix's reader stopped pulling at the route's cap: the rest goes nowhere.
    req.removeAllListeners('data')
    let dropped = 0
    req.on('data', (chunk) => {
      dropped += chunk.length
      if (dropped > UNREAD_BODY_MAX_BYTES) linger()
    })
    req.resume()
    if (declared > UNREAD_BODY_MAX_BYTES) linger()
  })
  next()
}

/**
 * express.static for the files `dir` holds now (listed once: a deploy ships them), with the
 * options `optionsFor(path)` gives: express.static looks every request up in the file system,
 * so only the paths that are files go to it (docs/performance.md, "Where the time goes").
 */
function staticFiles(dir, optionsFor) {
  const entries = existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }) : []
  /** @type {Map<string, import('express').RequestHandler>} */
  const servers = new Map()
  /** @type {Map<string, import('express').RequestHandler>} */
  const byPath = new Map()
  for (const entry of entries) {
    if (!entry.isFile()) continue
    const relative = path.relative(dir, path.join(entry.parentPath, entry.name))
    const file = `/${relative.split(path.sep).join('/')}`
    const options = optionsFor(file)
    const key = JSON.stringify(options)
    if (!servers.has(key)) servers.set(key, express.static(dir, options))
    byPath.set(file, servers.get(key))
    if (file.endsWith('/index.html'))
      byPath.set(file.slice(0, -'index.html'.length), servers.get(key))
  }
  return (req, res, next) => {
    const serve = byPath.get(req.path)
    return serve ? serve(req, res, next) : next()
  }
}

/**
 * @param {import('@remix-run/node').ServerBuild} build
 * @param {{ mode?: string }} [options]
 */
export function createApp(build, { mode = process.env.NODE_ENV } = {}) {
  const app = build.entry.module
  const server = express()
  server.disable('x-powered-by')
  // Nothing reads Express's `req.query` (Remix reads the URL itself), and parsing it with `qs`
  // on every request was a few per cent of a small request's CPU (docs/performance.md).
  server.set('query parser', false)
  server.use(settleUnreadBody)
  // Webhook answers are a few bytes of JSON for a provider's servers, which gzip makes bigger:
  // they go out as they are, without compression's per-request work or its
  // `Vary: Accept-Encoding` (docs/performance.md, "Where the time goes").
  const compress = compression()
  server.use((req, res, next) =>
    req.url.startsWith('/api/webhooks/') ? next() : compress(req, res, next),
  )
  // Every answer leaves with the security and cache headers, a static file's too
  // (app/lib/server/request-policy.server.ts).
  server.use(app.responseHeaders)
  // The client build (hashed assets cached for good, the copies of public/ for an hour) and
  // public/ itself, as remix-serve serves them.
  server.use(
    build.publicPath,
    staticFiles(build.assetsBuildDirectory, (file) =>
      file.startsWith('/assets/') ? { immutable: true, maxAge: '1y' } : { maxAge: '1h' },
    ),
  )
  server.use(staticFiles('public', () => ({ maxAge: '1h' })))
  // Requests that contradict TRUSTED_PROXY_COUNT are reported once (app/lib/server/proxy-check.server.ts).
  server.use(app.proxyCheckMiddleware)
  // The request log (app/lib/server/logger.server.ts): each request's id and socket address in the
  // request context (app/lib/server/request-context.server.ts) for everything after it, and one
  // access line per answer with one-time tokens redacted.
  server.use(app.httpLogger)
  // Each answer's route, status and latency, for /metrics (app/lib/server/metrics.server.ts).
  server.use(app.requestMetrics(build.routes))
  // The request policy (app/lib/server/request-policy.server.ts): a cross-site post gets its 403 here.
  server.use(app.requestPolicyMiddleware)
  // Remix, behind the anonymous page cache (app/lib/server/page-cache.server.ts), every action
  // reading its body within a cap (app/lib/server/http.server.ts).
  const handle = createRequestHandler({ build: app.capRequestBodies(build), mode })
  server.use((req, res, next) =>
    app.anonymousPageCache.serve(req, res, () => handle(req, res, next)),
  )
  // An error no route answered: one log line, a bare 500 (Express's own would print the stack).
  server.use(app.unexpectedError)
  return server
}
