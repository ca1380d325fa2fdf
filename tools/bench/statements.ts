// Database work per request from `pg_stat_statements` (docs/performance.md): top-level
// statements without PostgREST's framing (`begin`, `set_config`, `commit`) nor the outbox's
// polls (counted apart); rows written count nested statements too (track = all).
import pg from 'pg'

export interface StatementTotals {
  statements: number
  rowsWritten: number
  blocksDirtied: number
  blocksWritten: number
  blocksTouched: number
  execMs: number
  rateLimitCalls: number
  ledgerCalls: number
  outboxPolls: number
  outboxStatements: number
  outboxBlocks: number
}

const LEDGER = '(record_webhook_event|apply_subscription_event|record_payment_event)'
const OUTBOX = '(claim_notifications|finish_notification)'

const FRAMING = `query ~* '^\\s*(begin|commit|rollback|start transaction|set |reset |select set_config\\()'`
const OWN = `dbid = (select oid from pg_database where datname = current_database())
  and query !~ 'pg_stat_statements'`

const BLOCKS = 'shared_blks_hit + shared_blks_read'
const sum = (name: keyof StatementTotals, value: string, from: string) =>
  `coalesce((select sum(${value}) from ${from}), 0)::float8 as "${name}"`
const SNAPSHOT = `
  with s as (
    select *, ${FRAMING} as framing,
      query ~* '^\\s*(with\\M.*\\)\\s*)?(insert|update|delete|merge)\\M' as dml
    from pg_stat_statements(true) where ${OWN}
  ), t as (
    select *, query ~ '${OUTBOX}' as outbox from s where toplevel and not framing
  )
  select ${[
    sum('statements', 'calls', 't where not outbox'),
    sum('rowsWritten', 'rows', `s where dml and not query ~ '${OUTBOX}'`),
    sum('blocksDirtied', 'shared_blks_dirtied', 't where not outbox'),
    sum('blocksWritten', 'shared_blks_written', 't where not outbox'),
    sum('blocksTouched', BLOCKS, 't where not outbox'),
    sum('execMs', 'total_exec_time', 't where not outbox'),
    sum('rateLimitCalls', 'calls', "t where query ~ 'rate_limit_hit'"),
    sum('ledgerCalls', 'calls', `t where query ~ '${LEDGER}'`),
    sum('outboxPolls', 'calls', "t where query ~ 'claim_notifications'"),
    sum('outboxStatements', 'calls', 't where outbox'),
    sum('outboxBlocks', BLOCKS, "t where query ~ 'claim_notifications'"),
  ].join(', ')}`

export interface StatementReader {
  snapshot(): Promise<StatementTotals>
  /** Calls so far of each top-level statement that is not framing, by its text. */
  calls(): Promise<Map<string, number>>
  /** The plan of the outbox's claim when nothing is due: an index probe, or a scan. */
  emptyPollPlan(): Promise<string>
  close(): Promise<void>
}

/** `{ skipped }` when the server does not load the extension. */
export async function openStatements(
  databaseUrl: string,
): Promise<StatementReader | { skipped: string }> {
  const client = new pg.Client({ connectionString: databaseUrl })
  client.on('error', () => {}) // the bench database is dropped (with force) at the end
  await client.connect()
  try {
    await client.query('create extension if not exists pg_stat_statements')
    await client.query('select from pg_stat_statements limit 1')
  } catch (error) {
    await client.end()
    return {
      skipped: `pg_stat_statements is not loaded on this server (${(error as Error).message}); start a server with shared_preload_libraries=pg_stat_statements (docs/performance.md)`,
    }
  }
  return {
    async snapshot() {
      const { rows } = await client.query<StatementTotals>(SNAPSHOT)
      return rows[0]
    },
    async calls() {
      const { rows } = await client.query<{ query: string; calls: number }>(
        `select coalesce('rpc ' || substring(query from 'public\\."([a-z_0-9]+)"\\('),
                         left(regexp_replace(query, '\\s+', ' ', 'g'), 120)) as query,
                sum(calls)::float8 as calls
           from pg_stat_statements(true) where ${OWN} and toplevel and not (${FRAMING})
          group by 1`,
      )
      return new Map(rows.map((row) => [row.query, row.calls]))
    },
    async emptyPollPlan() {
      // The claim's row search (`claim_notifications`): which node reads the outbox.
      const { rows } = await client.query<{ 'QUERY PLAN': unknown }>(
        `explain (format json) select o.id from public.notification_outbox o
           where o.status = 'pending' and o.next_attempt_at <= now()
           order by o.next_attempt_at limit 10 for update skip locked`,
      )
      const nodes: string[] = []
      const walk = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'notification_outbox')
          nodes.push(
            `${String(node['Node Type'])}${node['Index Name'] ? ` using ${String(node['Index Name'])}` : ''}`,
          )
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child)
      }
      walk((rows[0]['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0].Plan)
      return nodes.join(', ')
    },
    close: () => client.end(),
  }
}

/** The statements called between two `calls()`, most called first, per request. */
export function statementsBetween(
  before: Map<string, number>,
  after: Map<string, number>,
  per: number,
) {
  return [...after]
    .map(([query, calls]) => ({
      query,
      perRequest: Math.round(((calls - (before.get(query) ?? 0)) / per) * 1000) / 1000,
    }))
    .filter((entry) => entry.perRequest > 0)
    .sort((a, b) => b.perRequest - a.perRequest)
    .slice(0, 8)
}

export function perRequest(before: StatementTotals, after: StatementTotals, per: number) {
  const result = {} as StatementTotals
  for (const key of Object.keys(after) as (keyof StatementTotals)[]) {
    result[key] = per > 0 ? Math.round(((after[key] - before[key]) / per) * 1000) / 1000 : 0
  }
  return result
}
