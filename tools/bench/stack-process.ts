// The bench's local stack in a process of its own (processes.ts). Over IPC it sends `ready`,
// answers `counts` (Supabase requests by path, `rest:<path>` for PostgREST) and exits on `close`.
import { SUITE_AUTH_LIMITS } from '../../tests/local-stack/stack'
import { startAppStack } from '../../tests/setup/stack'
import { scratchDatabase } from '../setup'

const { siteUrl, ports, pool } = JSON.parse(process.env.BENCH_STACK!) as {
  siteUrl: string
  ports: { supabase: number; stripe: number; polar: number }
  pool: { size: number; acquisitionTimeoutMs: number }
}
const database = process.env.DATABASE_URL ? await scratchDatabase('bench') : undefined
// Nested statements too (the writes inside the ledger's and the rate limiter's functions),
// when the server loads pg_stat_statements (statements.ts).
await database?.admin(`alter database ${database.name} set pg_stat_statements.track = 'all'`)
const stack = await startAppStack({
  siteUrl,
  ports,
  databaseUrl: database?.url,
  // A load from one address: the auth server's per-IP limits would stop it, and are not
  // what it measures (the local stack's README, "Test overrides"). PostgREST's pool.
  supabaseAuth: { ...SUITE_AUTH_LIMITS, restPool: pool },
}).catch(async (error: unknown) => {
  await database?.drop()
  throw error
})

let closing = false
async function close(code = 0) {
  if (closing) return
  closing = true
  await stack.close().catch(() => {})
  await database?.drop()
  process.exit(code)
}
process.on('message', (message: { type: string }) => {
  if (message.type === 'close') return void close()
  const rest = Object.entries(stack.supabase.restCountsByPath()).map(
    ([path, count]) => [`rest:${path}`, count] as const,
  )
  process.send?.({
    type: 'counts',
    counts: { ...stack.supabase.countsByPath(), ...Object.fromEntries(rest) },
  })
})
// The parent went away without saying goodbye: clean up anyway.
for (const event of ['disconnect', 'SIGTERM', 'SIGINT'] as const)
  process.on(event, () => void close(1))

process.send?.({
  type: 'ready',
  env: stack.env,
  databaseUrl: database?.url,
  database: database ? `PostgreSQL server (database ${database.name})` : 'PGlite (in memory)',
})
