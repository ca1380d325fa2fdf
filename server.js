// The production server, `npm start`: server-app.js on Node's HTTP server, plus what a
// deployment needs (docs/decisions/0002-server-and-request-policy.md): Node 22 or no start, a
// `.env` under the host's settings, time limits on receiving a request, warnings at start, and
// a graceful stop on SIGTERM within SHUTDOWN_TIMEOUT_MS.
import { existsSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import url from 'node:url'

import { installGlobals } from '@remix-run/node'

import { createApp } from './server-app.js'

const [nodeMajor] = process.versions.node.split('.').map(Number)
if (nodeMajor < 22) {
  console.error(
    `Node.js ${process.versions.node} cannot run this server: it needs Node.js 22 or newer (the Supabase and Polar SDKs do). Install Node.js 22 on this host (README, "Requirements").`,
  )
  process.exit(1)
}
if (existsSync('.env')) process.loadEnvFile('.env')

// Set before the build is loaded: React and the app read it when they load, and the app then
// refuses the local stack's keys and addresses (app/env.server.ts).
if (!process.env.NODE_ENV) process.env.NODE_ENV = 'production'

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
// Past either limit Node answers 408 and closes the connection (checked every second).
const headersTimeoutMs = milliseconds('HEADERS_TIMEOUT_MS', 10_000)
const requestTimeoutMs = Math.max(milliseconds('REQUEST_TIMEOUT_MS', 60_000), headersTimeoutMs)

const server = http.createServer(
  {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: 1_000,
  },
  createApp(build),
)
// A project on the legacy JWT secret (HS256) publishes no asymmetric key in its JWKS: no
// session can be verified here, so every signed-in page asks Supabase Auth (503 when it fails).
const supabaseUrl = process.env.SUPABASE_URL?.replace(/\/+$/, '')
fetch(`${supabaseUrl}/auth/v1/.well-known/jwks.json`, {
  headers: { apikey: process.env.SUPABASE_ANON_KEY ?? '' },
  signal: AbortSignal.timeout(5_000),
})
  .then((response) => response.json())
  .then(({ keys }) => {
    if (Array.isArray(keys) && !keys.some((key) => key.kty !== 'oct'))
      console.warn(
        '[server] Supabase signs sessions with the legacy JWT secret, so every signed-in page asks Supabase Auth: move the project to asymmetric JWT signing keys (docs/going-live.md, "Supabase", step 3)',
      )
  })
  .catch(() => {})

server.listen(port, host, () => {
  console.log(`[server] http://${host ?? 'localhost'}:${port} (${process.env.NODE_ENV})`)
  // Logs whether the database's migrations are behind or ahead of this build.
  build.entry.module.checkDatabase().catch(() => {})
})

let stopping = false
function stop(signal) {
  if (stopping) return
  stopping = true
  console.log(`[server] ${signal}: finishing in-flight requests, accepting no new ones`)
  server.close(async () => {
    await build.entry.module.mailRequestsSettled()
    console.log('[server] stopped')
    process.exit(0)
  })
  // Idle kept-alive sockets would hold close() open; busy ones finish their request first.
  server.closeIdleConnections()
  setTimeout(() => {
    console.error(`[server] requests or auth work still running after ${shutdownTimeoutMs} ms; cut`)
    server.closeAllConnections()
    process.exit(0)
  }, shutdownTimeoutMs).unref()
}
process.once('SIGTERM', () => stop('SIGTERM'))
process.once('SIGINT', () => stop('SIGINT'))
