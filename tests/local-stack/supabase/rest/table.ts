import type { Queryable } from '../../database'
import { restError, singularityError } from './errors'
import type { Accept, Preferences, QueryPlan } from './request'
import { type BodyRow, contentRange, type Outcome, readOutcome } from './response'
import type { TableInfo } from './schema'
import {
  assertNoPaging,
  Params,
  quote,
  renderPaging,
  renderSelect,
  renderWhere,
  wrapBody,
} from './sql'

/** Everything a statement on one table needs. */
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
  const applied = prefer.applied.filter((value) => value.startsWith('count='))
  return readOutcome(rows[0], plan.offset, accept, total, applied)
}

function unknownColumn(table: TableInfo, column: string) {
  return restError(
    400,
    'PGRST204',
    `Could not find the '${column}' column of '${table.name}' in the schema cache`,
  )
}

function checkColumns(table: TableInfo, columns: string[]) {
  for (const column of columns)
    if (!table.columns.includes(column)) throw unknownColumn(table, column)
}

/**
 * Runs `<mutation> returning …` (null: nothing to do) and answers like PostgREST; the
 * singular and max-affected checks throw, which rolls the transaction back.
 */
async function mutate(
  request: TableRequest,
  mutation: string | null,
  params: Params,
  created: boolean,
): Promise<Outcome> {
  const { tx, table, plan, accept, prefer } = request
  const returning =
    prefer.return === 'representation'
      ? renderSelect(table.name, plan.select)
      : prefer.return === 'headers-only' && table.primaryKey.length
        ? table.primaryKey.map((column) => `${quote(table.name)}.${quote(column)}`).join(', ')
        : '1'
  const sql = `with pgrst_source as (${mutation} returning ${returning}) ${wrapBody('select * from pgrst_source', accept)}`
  const nothing: BodyRow = { body: accept.singular ? 'null' : '[]', page_total: 0 }
  const [row] = mutation === null ? [nothing] : (await tx.query<BodyRow>(sql, params.values)).rows
  const { body, page_total: affected } = row
  if (accept.singular && affected !== 1) throw singularityError(affected)
  if (prefer.maxAffected !== undefined && affected > prefer.maxAffected) {
    throw restError(
      400,
      'PGRST124',
      'Query result exceeds max-affected preference constraint',
      `The query affects ${affected} rows`,
    )
  }
  const headers: Record<string, string> = {
    'Content-Range': contentRange(0, 0, prefer.count ? affected : undefined),
  }
  if (prefer.applied.length) headers['Preference-Applied'] = prefer.applied.join(', ')
  if (prefer.return === 'representation') return { status: created ? 201 : 200, body, headers }
  if (created && prefer.return === 'headers-only' && affected === 1 && table.primaryKey.length) {
    const row = (JSON.parse(body) as Record<string, unknown>[] | Record<string, unknown>) ?? {}
    const values = Array.isArray(row) ? row[0] : row
    const query = table.primaryKey.map(
      (column) => `${column}=eq.${encodeURIComponent(String(values[column]))}`,
    )
    headers.Location = `/${table.name}?${query.join('&')}`
  }
  return { status: created ? 201 : 204, body: null, headers }
}

/** POST: insert (or upsert with `Prefer: resolution=…`) an object or an array of objects. */
export async function insertRows(request: TableRequest, payload: unknown): Promise<Outcome> {
  const { table, plan, prefer } = request
  assertNoPaging(plan)
  const rows = Array.isArray(payload) ? payload : [payload]
  if (!rows.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row))) {
    throw restError(400, 'PGRST102', 'Empty or invalid json')
  }
  const objects = rows as Record<string, unknown>[]
  const columns = plan.columns ?? [...new Set(objects.flatMap((row) => Object.keys(row)))]
  checkColumns(table, columns)
  if (objects.length === 0) return mutate(request, null, new Params(), true)
  const params = new Params()
  let insert: string
  if (columns.length === 0) {
    if (objects.length > 1)
      throw restError(
        400,
        'PGRST102',
        'Empty or invalid json',
        'Cannot insert several rows without columns',
      )
    insert = `insert into ${target(table)} default values`
  } else {
    const tuples = objects.map((row) => {
      const record = `(jsonb_populate_record(null::${target(table)}, ${params.add(JSON.stringify(row))}::jsonb))`
      const cells = columns.map((column) =>
        prefer.missingDefault && !(column in row) ? 'default' : `${record}.${quote(column)}`,
      )
      return `(${cells.join(', ')})`
    })
    insert = `insert into ${target(table)} (${columns.map(quote).join(', ')}) values ${tuples.join(', ')}`
  }
  return mutate(request, insert + conflictClause(table, plan, prefer, columns), params, true)
}

function conflictClause(table: TableInfo, plan: QueryPlan, prefer: Preferences, columns: string[]) {
  if (!prefer.resolution) return ''
  const keys = plan.onConflict ?? table.primaryKey
  if (keys.length === 0)
    throw restError(400, 'PGRST100', `Table '${table.name}' has no primary key; pass on_conflict`)
  checkColumns(table, keys)
  const conflict = ` on conflict (${keys.map(quote).join(', ')})`
  if (prefer.resolution === 'ignore-duplicates' || columns.length === 0)
    return `${conflict} do nothing`
  return `${conflict} do update set ${columns.map((column) => `${quote(column)} = excluded.${quote(column)}`).join(', ')}`
}

/** pg_safeupdate, which Supabase loads: UPDATE and DELETE need a WHERE clause. */
function requireFilters(plan: QueryPlan, verb: 'UPDATE' | 'DELETE') {
  if (plan.where.length === 0) throw restError(400, '21000', `${verb} requires a WHERE clause`)
}

/** PATCH: update the filtered rows with the body's columns. */
export async function updateRows(request: TableRequest, payload: unknown): Promise<Outcome> {
  const { table, plan } = request
  assertNoPaging(plan)
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

/** DELETE: remove the filtered rows. */
export async function deleteRows(request: TableRequest): Promise<Outcome> {
  const { table, plan } = request
  assertNoPaging(plan)
  requireFilters(plan, 'DELETE')
  const params = new Params()
  const where = renderWhere(table.name, plan.where, params)
  return mutate(request, `delete from ${target(table)}${where}`, params, false)
}
