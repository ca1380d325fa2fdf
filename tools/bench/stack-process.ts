/**
 * The benchmark's local stack, in a process of its own so that the emulators do not share
 * an event loop with the load generator. Started by `run.ts` with an IPC channel:
 *   → { type: 'ready', env, database, databaseUrl }  once the stack is up (databaseUrl: the
 *                                                       server's bench database, if any)
 *   ← { type: 'counts' }  → { type: 'counts', counts }  Supabase /auth/v1 requests by path,
 *                                                       and /rest/v1 ones as `rest:<path>`
 *   ← { type: 'close' }   → exits after closing the stack (and dropping its database)
 * With DATABASE_URL a fresh database is created on that server and dropped at the end.
 */
import { randomBytes } from 'node:crypto'

import pg from 'pg'

import { withDatabaseName } from '../../tests/local-stack/database'
import { SUITE_AUTH_LIMITS } from '../../tests/local-stack/stack'
import { startAppStack } from '../../tests/setup/stack'
import { TOOL_PORTS } from '../ports'

const siteUrl = process.env.BENCH_SITE_URL ?? `http://localhost:${TOOL_PORTS.bench.app}`
const ports = {
  supabase: Number(process.env.BENCH_SUPABASE_PORT ?? TOOL_PORTS.bench.supabase),
  stripe: Number(process.env.BENCH_STRIPE_PORT ?? TOOL_PORTS.bench.stripe),
  polar: Number(process.env.BENCH_POLAR_PORT ?? TOOL_PORTS.bench.polar),
}
const serverUrl = process.env.DATABASE_URL || undefined

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

const databaseName = serverUrl ? `bench_${randomBytes(6).toString('hex')}` : undefined
if (databaseName) {
  await adminQuery(`create database ${databaseName}`)
  // Nested statements too (the writes inside the ledger's and the rate limiter's functions),
  // when the server loads pg_stat_statements (statements.ts); a placeholder otherwise.
  await adminQuery(`alter database ${databaseName} set pg_stat_statements.track = 'all'`)
}
const dropDatabase = async () => {
  if (databaseName)
    await adminQuery(`drop database if exists ${databaseName} with (force)`).catch(() => {})
}

const databaseUrl =
  databaseName && serverUrl ? withDatabaseName(serverUrl, databaseName) : undefined
let stack: Awaited<ReturnType<typeof startAppStack>>
try {
  stack = await startAppStack({
    siteUrl,
    ports,
    databaseUrl,
    // A load from one address: the auth server's per-IP limits would stop it, and are not
    // what it measures (the local stack's README, "Test overrides").
    supabaseAuth: {
      ...SUITE_AUTH_LIMITS,
      // PostgREST's pool (default 10 connections, 10 s): BENCH_DB_POOL, BENCH_DB_POOL_ACQUISITION_TIMEOUT_MS.
      restPool: {
        size: Number(process.env.BENCH_DB_POOL ?? 10),
        acquisitionTimeoutMs: Number(process.env.BENCH_DB_POOL_ACQUISITION_TIMEOUT_MS ?? 10_000),
      },
    },
  })
} catch (error) {
  await dropDatabase()
  throw error
}

let closing = false
async function close(code = 0) {
  if (closing) return
  closing = true
  await stack.close().catch(() => {})
  await dropDatabase()
  process.exit(code)
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'counts') {
    const rest = Object.entries(stack.supabase.restCountsByPath()).map(
      ([path, count]) => [`rest:${path}`, count] as const,
    )
    process.send?.({
      type: 'counts',
      counts: { ...stack.supabase.countsByPath(), ...Object.fromEntries(rest) },
    })
  } else if (message.type === 'close') {
    void close()
  }
})
// The parent went away without saying goodbye: clean up anyway.
process.on('disconnect', () => void close(1))
process.on('SIGTERM', () => void close(1))
process.on('SIGINT', () => void close(1))

process.send?.({
  type: 'ready',
  env: stack.env,
  databaseUrl,
  database: serverUrl ? `PostgreSQL server (database ${databaseName})` : 'PGlite (in memory)',
})
