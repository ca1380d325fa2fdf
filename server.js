// The production server: `npm start`. The same stack as `remix-serve` (Express, compression,
// immutable hashed assets, public/ files, a request log; PORT and HOST), plus what a
// deployment needs and remix-serve cannot give (docs/decisions/0006-server-entry.md):
// - the socket's address for each request (per-client rate limits without a proxy);
// - a graceful stop on SIGTERM: no new connections, in-flight requests finish within
//   SHUTDOWN_TIMEOUT_MS, then exit 0;
// - an answer given before the request body was read to its end (413 over a size cap,
//   429, 403) reaches the client and leaves no kept-alive connection wedged;
// - the request policy before Remix (a cross-site post gets a 403 page, not Remix's 500;
//   every answer gets the security and cache headers);
// - production mode unless NODE_ENV says otherwise, as remix-serve: development, the tests,
//   the benchmark and the soak set NODE_ENV themselves;
// - a time limit on receiving each request's headers and whole body (a client that sends
//   slowly cannot hold sockets), and a warning when requests contradict TRUSTED_PROXY_COUNT;
// - an access log whose paths never hold one-time tokens.
// Plain JavaScript, so production needs no build step or TypeScript runtime for it.
import { existsSync, readdirSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import url from 'node:url'
import { createRequestHandler } from '@remix-run/express'
import { installGlobals } from '@remix-run/node'
import compression from 'compression'
import express from 'express'

// Production unless told otherwise (an empty NODE_ENV counts as unset), set before the build
// is loaded: React and the app read it when they load, and the app then refuses the local
// stack's keys and addresses (app/env.server.ts).
if (!process.env.NODE_ENV) process.env.NODE_ENV = 'production'

/** A whole number of milliseconds from the environment, or the fallback when unset. */
function milliseconds(name, fallback) {
  const value = process.env[name]
  if (value === undefined || value.trim() === '') return fallback
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < 1) {
    console.error(
      `Invalid configuration:\n  - ${name}: must be a whole number of milliseconds (1 or more), not "${value}"`,
    )
    process.exit(1)
  }
  return parsed
}

const buildPath = path.resolve(process.argv[2] ?? 'build/server/index.js')
const build = await import(url.pathToFileURL(buildPath).href)
installGlobals({ nativeFetch: build.future.v3_singleFetch })

const port = Number(process.env.PORT) || 3000
const host = process.env.HOST || undefined
const shutdownTimeoutMs = Number(process.env.SHUTDOWN_TIMEOUT_MS) || 10_000
// How long a client may take to send a request's headers, and the whole request with its
// body; past either, Node answers 408 and closes the connection. Checked every second.
const headersTimeoutMs = milliseconds('HEADERS_TIMEOUT_MS', 10_000)
const requestTimeoutMs = Math.max(milliseconds('REQUEST_TIMEOUT_MS', 60_000), headersTimeoutMs)

// The rest of a body the app left unread is read and thrown away after the answer, up to this
// many bytes; a connection whose body may be longer (or has no declared length) is answered
// with `Connection: close` instead, and heard out for at most UNREAD_BODY_LINGER_MS.
const UNREAD_BODY_MAX_BYTES = 1024 * 1024
const UNREAD_BODY_LINGER_MS = 2_000

/** Sockets answered with `Connection: close` whose unread body is being thrown away. */
const closing = new WeakSet()

/**
 * A body the app does not read to its end must neither cost the client its answer nor
 * wedge the connection. Remix reads the body through a stream that stops pulling from the
 * socket once the app stops reading, so the rest stays on the wire and the next request on
 * a kept-alive connection never gets parsed; and a body the app cancels (over a size cap)
 * destroys the request, which in Node destroys the socket before the answer is written.
 * Here: a cancelled body keeps its socket; when the answer starts before the body has
 * arrived, it says `Connection: close` unless the declared rest is small; after the answer
 * the rest is read and thrown away (kept-alive: the next request follows), or, when
 * closing, the server sends its end of the stream and hears the client out for a moment
 * before closing, so that the client reads the answer rather than a reset.
 */
function settleUnreadBody(req, res, next) {
  const socket = req.socket
  // A request sent after an answer that said `Connection: close` is not served (the socket
  // closes within UNREAD_BODY_LINGER_MS; the client sends it again on a new connection).
  if (closing.has(socket)) return
  const length = req.headers['content-length']
  if (req.headers['transfer-encoding'] === undefined && !(Number(length) > 0)) return next()

  const destroy = req.destroy
  req.destroy = function (error) {
    if (socket.destroyed) return destroy.call(this, error)
    this.pause()
    return this
  }
  const smallRest =
    req.headers['transfer-encoding'] === undefined && Number(length) <= UNREAD_BODY_MAX_BYTES
  const writeHead = res.writeHead
  res.writeHead = function (...args) {
    if (!req.complete && !this.headersSent) {
      // Node ends a socket whose answer says `Connection: close` (ours, or the client's
      // choice) through destroySoon once the answer is written.
      socket.destroySoon = () => lingerThenClose(req, socket)
      if (!smallRest) {
        this.setHeader('Connection', 'close')
        closing.add(socket)
      }
    }
    return writeHead.apply(this, args)
  }
  res.once('finish', () => {
    if (req.readableEnded) return
    let discarded = 0
    req.removeAllListeners('data')
    req.on('data', (chunk) => {
      discarded += chunk.length
      // Only a closing connection gets here (a kept one declared less): stop reading, and
      // let the linger time close it.
      if (discarded > UNREAD_BODY_MAX_BYTES) req.pause()
    })
    req.resume()
  })
  next()
}

/** Ends the answer's side of the socket, then closes it once the body is in, or on time. */
function lingerThenClose(req, socket) {
  socket.end()
  const close = () => socket.destroy()
  const timer = setTimeout(close, UNREAD_BODY_LINGER_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
  const bodyIn = () => (socket.writableFinished ? close() : socket.once('finish', close))
  if (req.readableEnded) bodyIn()
  else req.once('end', bodyIn)
}

/**
 * express.static for the files `dir` holds now, by their path under the mount point, with
 * the options `optionsFor(path)` gives; any other request goes on to the next handler.
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

const app = express()
app.disable('x-powered-by')
// Nothing reads Express's `req.query` (Remix reads the URL itself), and parsing it with `qs`
// on every request was a few per cent of a small request's CPU (docs/performance.md).
app.set('query parser', false)
app.use(settleUnreadBody)
// Webhook answers are a few bytes of JSON for a provider's servers, which gzip makes bigger,
// not smaller (Remix streams every answer, so compression never sees its size and compresses
// whatever the client accepts). They go out as they are, without compression's per-request
// work (negotiating the encoding, wrapping the answer's writes; docs/performance.md, "Where
// the time goes") and so without its `Vary: Accept-Encoding`.
const compress = compression()
app.use((req, res, next) =>
  req.url.startsWith('/api/webhooks/') ? next() : compress(req, res, next),
)
// Static files: the client build (hashed assets under assets/, cached for good; the copies
// of public/ that Vite puts beside them, for an hour) and public/ itself, as remix-serve
// serves them. The files are listed once at start (a deploy ships them with the build):
// express.static looks every request up in the file system (a stat and its callbacks), so
// only the paths that are files go to it and every page and API request goes straight on
// (docs/performance.md, "Where the time goes").
app.use(
  build.publicPath,
  staticFiles(build.assetsBuildDirectory, (file) =>
    file.startsWith('/assets/') ? { immutable: true, maxAge: '1y' } : { maxAge: '1h' },
  ),
)
app.use(staticFiles('public', () => ({ maxAge: '1h' })))
// Requests that contradict TRUSTED_PROXY_COUNT (forwarded headers with no proxy configured,
// or none although one is) are reported once (app/lib/proxy-check.server.ts).
app.use(build.entry.module.proxyCheckMiddleware)
// The request log (app/lib/logger.server.ts): each request's id in the request context for
// its log lines, and one access line per answer with one-time tokens redacted.
app.use(build.entry.module.httpLogger)

/**
 * The request policy (app/lib/request-policy.server.ts) in front of Remix, for every request
 * Remix answers: a cross-site post gets its 403 (a page, or JSON for the APIs) here, and every
 * answer leaves with the security and cache headers.
 * @type {import('express').RequestHandler}
 */
const requestPolicy = build.entry.module.requestPolicyMiddleware

/**
 * The anonymous page cache (app/lib/page-cache.server.ts): a visitor without cookies gets the
 * pages that allow it from a render kept for a minute, with a fresh CSP nonce; everything
 * else goes to Remix.
 * @type {(req: import('express').Request, res: import('express').Response, render: () => void) => void}
 */
const anonymousPageCache = build.entry.module.anonymousPageCache

const handle = createRequestHandler({ build, mode: process.env.NODE_ENV })
app.all('*', requestPolicy)
app.all('*', (req, res, next) => anonymousPageCache(req, res, () => handle(req, res, next)))

const server = http.createServer(
  {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: 1_000,
  },
  app,
)
server.listen(port, host, () => {
  console.log(`[server] http://${host ?? 'localhost'}:${port} (${process.env.NODE_ENV})`)
})

let stopping = false
function stop(signal) {
  if (stopping) return
  stopping = true
  console.log(`[server] ${signal}: finishing in-flight requests, accepting no new ones`)
  server.close(() => {
    console.log('[server] stopped')
    process.exit(0)
  })
  // Idle kept-alive sockets would hold close() open; busy ones finish their request first.
  server.closeIdleConnections()
  setTimeout(() => {
    console.error(`[server] requests still running after ${shutdownTimeoutMs} ms; closing them`)
    server.closeAllConnections()
    process.exit(0)
  }, shutdownTimeoutMs).unref()
}
process.once('SIGTERM', () => stop('SIGTERM'))
process.once('SIGINT', () => stop('SIGINT'))
