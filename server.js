// The production server: `npm start`. The same stack as `remix-serve` (Express, compression,
// immutable hashed assets, public/ files, a request log; PORT and HOST), plus what a
// deployment needs and remix-serve cannot give (docs/decisions/0006-server-entry.md):
// - the socket's address for each request (per-client rate limits without a proxy);
// - a graceful stop on SIGTERM: no new connections, in-flight requests finish within
//   SHUTDOWN_TIMEOUT_MS, then exit 0.
// Plain JavaScript, so production needs no build step or TypeScript runtime for it.
import path from 'node:path'
import url from 'node:url'
import { createRequestHandler } from '@remix-run/express'
import { installGlobals } from '@remix-run/node'
import compression from 'compression'
import express from 'express'
import morgan from 'morgan'

const buildPath = path.resolve(process.argv[2] ?? 'build/server/index.js')
const build = await import(url.pathToFileURL(buildPath).href)
installGlobals({ nativeFetch: build.future.v3_singleFetch })
/** @type {import('node:async_hooks').AsyncLocalStorage<{ clientAddress: string | undefined }>} */
const requestContext = build.entry.module.requestContext

const port = Number(process.env.PORT) || 3000
const host = process.env.HOST || undefined
const shutdownTimeoutMs = Number(process.env.SHUTDOWN_TIMEOUT_MS) || 10_000

const app = express()
app.disable('x-powered-by')
app.use(compression())
app.use(
  build.publicPath,
  express.static(build.assetsBuildDirectory, { immutable: true, maxAge: '1y' }),
)
app.use(express.static('public', { maxAge: '1h' }))
app.use(morgan('tiny'))

const handle = createRequestHandler({ build, mode: process.env.NODE_ENV })
app.all('*', (req, res, next) =>
  requestContext.run({ clientAddress: req.socket.remoteAddress }, () => handle(req, res, next)),
)

const server = app.listen(port, host, () => {
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
