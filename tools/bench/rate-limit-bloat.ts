/**
 * The rate-limit table under a sustained attack (docs/performance.md, "Rate-limit counters"):
 * on a fresh database of the PostgreSQL server at DATABASE_URL (created, migrated, dropped),
 * 50,000 hits as the app makes them, three counters per sign-in post (the client, the email
 * per client, the account ceiling), then the table's dead rows, HOT updates and size.
 * Autovacuum is off for the table during the run, so what is left is what the table's own
 * design leaves (page pruning), not what a vacuum happened to clean.
 *
 *   DATABASE_URL=postgres://… node --import tsx tools/bench/rate-limit-bloat.ts
 *     [--hits 50000] [--concurrency 10] [--clients 50] [--accounts 1000] [--shared]
 *
 * `--shared`: every request from the same unidentified client (TRUSTED_PROXY_COUNT wrong), so
 * the client counter is the fallback key: one row before, `--spread` rows (the app's
 * SHARED_CLIENT_ROWS, default 8 with rate_limit_hits) picked at random since. Bounded in hits;
 * loopback only.
 */
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'

import pg from 'pg'

import { migrate, openDatabase, withDatabaseName } from '../../tests/local-stack/database'

const { values } = parseArgs({
  options: {
    hits: { type: 'string', default: '50000' },
    concurrency: { type: 'string', default: '10' },
    clients: { type: 'string', default: '50' },
    accounts: { type: 'string', default: '1000' },
    shared: { type: 'boolean', default: false },
    spread: { type: 'string' },
  },
})
const serverUrl = process.env.DATABASE_URL
if (!serverUrl) {
  console.log('skipped: DATABASE_URL is not set (this measures the PostgreSQL server)')
  process.exit(75)
}
const hits = Number(values.hits)
const requests = Math.ceil(hits / 3)
const concurrency = Number(values.concurrency)
const name = `ratelimit_${randomBytes(5).toString('hex')}`
const admin = new pg.Client({ connectionString: serverUrl })
await admin.connect()
await admin.query(`create database ${name}`)
const url = withDatabaseName(serverUrl, name)
try {
  const database = await openDatabase({ url })
  await migrate(database)
  await database.query('alter table public.rate_limits set (autovacuum_enabled = false)')
  const { rows } = await database.query<{ batched: boolean }>(
    `select to_regprocedure('public.rate_limit_hits(text[], integer[], integer[])') is not null as batched`,
  )
  await database.close()
  const batched = rows[0].batched
  const spread = Number(values.spread ?? (batched ? 8 : 1))
  const rule = { client: [20, 900_000], shared: [300, 900_000], email: [10, 900_000] }
  const account = [20, 900_000]
  let next = 0
  let statements = 0
  const started = Date.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      await client.query('set role service_role')
      for (let index = next++; index < requests; index = next++) {
        const address = `a${index % Number(values.accounts)}`
        const shard = spread > 1 ? `shared:${Math.floor(Math.random() * spread)}` : 'shared'
        const ip = values.shared ? shard : `ip:198.18.0.${index % Number(values.clients)}`
        const clientRule = values.shared
          ? [Math.ceil(rule.shared[0] / spread), 900_000]
          : rule.client
        const counters: [string, number[]][] = [
          [`auth:sign-in:${ip}`, clientRule],
          [`auth:sign-in:email:${address}:${values.shared ? 'shared' : ip}`, rule.email],
          [`auth:sign-in:account:${address}`, account],
        ]
        if (batched) {
          await client.query('select public.rate_limit_hits($1, $2, $3)', [
            counters.map(([key]) => key),
            counters.map(([, [limit]]) => limit),
            counters.map(([, [, window]]) => window),
          ])
          statements += 1
        } else {
          for (const [key, [limit, window]] of counters)
            await client.query('select public.rate_limit_hit($1, $2, $3)', [key, limit, window])
          statements += counters.length
        }
      }
      await client.end() // a backend reports its table statistics when it ends
    }),
  )
  const seconds = (Date.now() - started) / 1000
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const stats = new pg.Client({ connectionString: url })
  await stats.connect()
  const { rows: table } = await stats.query(
    `select n_live_tup, n_dead_tup, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del,
            pg_relation_size('public.rate_limits') as heap_bytes,
            pg_indexes_size('public.rate_limits') as index_bytes
       from pg_stat_user_tables where relid = 'public.rate_limits'::regclass`,
  )
  await stats.end()
  console.log(
    JSON.stringify(
      {
        function: batched
          ? 'rate_limit_hits (one call per request)'
          : 'rate_limit_hit (per counter)',
        fallbackKey: values.shared ? `${spread} row(s)` : false,
        hits: requests * 3,
        requests,
        statements,
        seconds,
        ...table[0],
      },
      null,
      2,
    ),
  )
} finally {
  await admin.query(`drop database if exists ${name} with (force)`)
  await admin.end()
}
