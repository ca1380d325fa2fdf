/**
 * The rate-limit table under a sustained sign-in attack (docs/performance.md, "Rate-limit
 * counters"): on a fresh database of the server at DATABASE_URL, `--hits` counter hits as
 * the app makes them (one `rate_limit_hits` call per post, three counters: the client, the
 * email per client, the account), autovacuum off for the table, then its dead rows, HOT
 * updates and size. `--shared`: every post from one unidentified client, whose budget the app
 * spreads over 8 rows.
 *
 *   DATABASE_URL=postgres://… node --import tsx tools/bench/rate-limit-bloat.ts
 *     [--hits 50000] [--concurrency 10] [--clients 50] [--accounts 1000] [--shared]
 */
import { parseArgs } from 'node:util'

import pg from 'pg'

import { migrate, openDatabase } from '../../tests/local-stack/database'
import { scratchDatabase } from '../setup'

const { values } = parseArgs({
  options: {
    hits: { type: 'string', default: '50000' },
    concurrency: { type: 'string', default: '10' },
    clients: { type: 'string', default: '50' },
    accounts: { type: 'string', default: '1000' },
    shared: { type: 'boolean', default: false },
  },
})
if (!process.env.DATABASE_URL) {
  console.log('skipped: DATABASE_URL is not set (this measures the PostgreSQL server)')
  process.exit(75)
}
const requests = Math.ceil(Number(values.hits) / 3)
const WINDOW = 900_000
const SHARED_ROWS = 8
const scratch = await scratchDatabase('ratelimit')
try {
  const database = await openDatabase({ url: scratch.url })
  await migrate(database)
  await database.query('alter table public.rate_limits set (autovacuum_enabled = false)')
  await database.close()
  let next = 0
  const started = Date.now()
  await Promise.all(
    Array.from({ length: Number(values.concurrency) }, async () => {
      const client = new pg.Client({ connectionString: scratch.url })
      await client.connect()
      await client.query('set role service_role')
      for (let index = next++; index < requests; index = next++) {
        const account = `a${index % Number(values.accounts)}`
        const ip = values.shared
          ? `shared:${Math.floor(Math.random() * SHARED_ROWS)}`
          : `ip:198.18.0.${index % Number(values.clients)}`
        const counters: [string, number][] = [
          [`auth:sign-in:${ip}`, values.shared ? Math.ceil(300 / SHARED_ROWS) : 20],
          [`auth:sign-in:email:${account}:${values.shared ? 'shared' : ip}`, 10],
          [`auth:sign-in:account:${account}`, 20],
        ]
        await client.query('select public.rate_limit_hits($1, $2, $3)', [
          counters.map(([key]) => key),
          counters.map(([, limit]) => limit),
          counters.map(() => WINDOW),
        ])
      }
      await client.end() // a backend reports its table statistics when it ends
    }),
  )
  const seconds = (Date.now() - started) / 1000
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const stats = new pg.Client({ connectionString: scratch.url })
  await stats.connect()
  const { rows } = await stats.query(
    `select n_live_tup, n_dead_tup, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del,
            pg_relation_size('public.rate_limits') as heap_bytes,
            pg_indexes_size('public.rate_limits') as index_bytes
       from pg_stat_user_tables where relid = 'public.rate_limits'::regclass`,
  )
  await stats.end()
  console.log(
    JSON.stringify({ hits: requests * 3, statements: requests, seconds, ...rows[0] }, null, 2),
  )
} finally {
  await scratch.drop()
}
