import type { Queryable } from '../../database'
import { parseError, restError, singularityError } from './errors'
import type { Accept, Preferences, QueryPlan } from './request'
import { type BodyRow, contentRange, type Outcome, readOutcome } from './response'
import type { TableInfo } from './schema'
import { Params, quote, renderPaging, renderSelect, renderWhere, wrapBody } from './sql'

export interface TableRequest {
  tx: Queryable
  table: TableInfo
  plan: QueryPlan
  accept: Accept
  prefer: Preferences
}

const target = (table: TableInfo) => `public.${quote(table.name)}`

/** GET/HEAD: the rows RLS lets the role see, plus an exact count when asked. */
export async function readRows({
  tx,
  table,
  plan,
  accept,
  prefer,
}: TableRequest): Promise<Outcome> {
  const params = new Params()
  const where = renderWhere(table.name, plan.where, params)
  const source = `select ${renderSelect(table.name, plan.select)} from ${target(table)}${where}${renderPaging(table.name, plan)}`
  const { rows } = await tx.query<BodyRow>(wrapBody(source, accept), params.values)
  let total: number | undefined
  if (prefer.count) {
    const counted = await tx.query<{ total: number }>(
      `select count(*)::int as total from ${target(table)}${where}`,
      params.values,
    )
    total = counted.rows[0].total
  }
  return readOutcome(rows[0], accept, total, prefer.count ? ['count=exact'] : [])
}

function checkColumns(table: TableInfo, columns: string[]) {
  for (const column of columns) {
    if (table.columns.includes(column)) continue
    throw restError(
      400,
      'PGRST204',
      `Could not find the '${column}' column of '${table.name}' in the schema cache`,
    )
  }
}

/**
 * Runs `<mutation> returning …` (null: nothing to do) and answers like PostgREST; the
 * singular check throws, which rolls the transaction back.
 */
async function mutate(
  request: TableRequest,
  mutation: string | null,
  params: Params,
  created: boolean,
): Promise<Outcome> {
  const { tx, table, plan, accept, prefer } = request
  const returning = prefer.return === 'representation' ? renderSelect(table.name, plan.select) : '1'
  const sql = `with pgrst_source as (${mutation} returning ${returning}) ${wrapBody('select * from pgrst_source', accept)}`
  const nothing: BodyRow = { body: accept.singular ? 'null' : '[]', page_total: 0 }
  const [row] = mutation === null ? [nothing] : (await tx.query<BodyRow>(sql, params.values)).rows
  const { body, page_total: affected } = row
  if (accept.singular && affected !== 1) throw singularityError(affected)
  const headers: Record<string, string> = {
    'Content-Range': contentRange(0, prefer.count ? affected : undefined),
  }
  if (prefer.applied.length) headers['Preference-Applied'] = prefer.applied.join(', ')
  if (prefer.return === 'representation') return { status: created ? 201 : 200, body, headers }
  return { status: created ? 201 : 204, body: null, headers }
}

/** Writes take no limit here (PostgREST's limited updates and deletes are not emulated). */
function assertNoLimit(plan: QueryPlan) {
  if (plan.limit !== undefined)
    throw parseError('"limit on writes"', 'Not supported by the local PostgREST stand-in')
}

/** POST: insert (or upsert with `Prefer: resolution=…`) an object or an array of objects. */
export async function insertRows(request: TableRequest, payload: unknown): Promise<Outcome> {
  const { table, plan, prefer } = request
  assertNoLimit(plan)
  const rows = Array.isArray(payload) ? payload : [payload]
  if (!rows.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row))) {
    throw restError(400, 'PGRST102', 'Empty or invalid json')
  }
  const objects = rows as Record<string, unknown>[]
  const columns = plan.columns ?? [...new Set(objects.flatMap((row) => Object.keys(row)))]
  checkColumns(table, columns)
  if (objects.length === 0) return mutate(request, null, new Params(), true)
  if (columns.length === 0)
    throw restError(400, 'PGRST102', 'Empty or invalid json', 'No columns to insert')
  const params = new Params()
  const tuples = objects.map((row) => {
    const record = `(jsonb_populate_record(null::${target(table)}, ${params.add(JSON.stringify(row))}::jsonb))`
    return `(${columns.map((column) => `${record}.${quote(column)}`).join(', ')})`
  })
  const insert = `insert into ${target(table)} (${columns.map(quote).join(', ')}) values ${tuples.join(', ')}`
  return mutate(request, insert + conflictClause(table, plan, prefer, columns), params, true)
}

function conflictClause(table: TableInfo, plan: QueryPlan, prefer: Preferences, columns: string[]) {
  if (!prefer.mergeDuplicates) return ''
  const keys = plan.onConflict ?? table.primaryKey
  if (keys.length === 0)
    throw restError(400, 'PGRST100', `Table '${table.name}' has no primary key; pass on_conflict`)
  checkColumns(table, keys)
  const sets = columns.map((column) => `${quote(column)} = excluded.${quote(column)}`)
  return ` on conflict (${keys.map(quote).join(', ')}) do update set ${sets.join(', ')}`
}

/** pg_safeupdate, which Supabase loads: UPDATE and DELETE need a WHERE clause. */
function requireFilters(plan: QueryPlan, verb: 'UPDATE' | 'DELETE') {
  if (plan.where.length === 0) throw restError(400, '21000', `${verb} requires a WHERE clause`)
}

export async function updateRows(request: TableRequest, payload: unknown): Promise<Outcome> {
  const { table, plan } = request
  assertNoLimit(plan)
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw restError(400, 'PGRST102', 'Empty or invalid json')
  }
  const columns = Object.keys(payload)
  checkColumns(table, columns)
  requireFilters(plan, 'UPDATE')
  const params = new Params()
  if (columns.length === 0) return mutate(request, null, params, false)
  const body = `jsonb_populate_record(null::${target(table)}, ${params.add(JSON.stringify(payload))}::jsonb) as pgrst_body`
  const sets = columns.map((column) => `${quote(column)} = pgrst_body.${quote(column)}`).join(', ')
  const where = renderWhere(table.name, plan.where, params)
  return mutate(request, `update ${target(table)} set ${sets} from ${body}${where}`, params, false)
}

export async function deleteRows(request: TableRequest): Promise<Outcome> {
  const { table, plan } = request
  assertNoLimit(plan)
  requireFilters(plan, 'DELETE')
  const params = new Params()
  const where = renderWhere(table.name, plan.where, params)
  return mutate(request, `delete from ${target(table)}${where}`, params, false)
}
