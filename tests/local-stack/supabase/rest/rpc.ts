import type { Queryable } from '../../database'
import { restError } from './errors'
import { isIdentifier } from './grammar'
import { type Accept, applyRangeHeader, parseQuery, type Preferences } from './request'
import { type BodyRow, type Outcome, readOutcome } from './response'
import { findFunction, type SchemaCache } from './schema'
import { Params, quote, renderPaging, renderSelect, renderWhere, wrapBody } from './sql'

/** An RPC call: POST with a JSON object of named arguments, or GET/HEAD with query arguments. */
export interface RpcRequest {
  tx: Queryable
  name: string
  method: string
  url: URL
  headers: Headers
  /** POST body (already parsed); undefined for GET/HEAD. */
  payload: unknown
  accept: Accept
  prefer: Preferences
  /** The handler's schema cache (absent: look the function up in the catalog). */
  schema?: SchemaCache
}

const RESERVED = new Set([
  'select',
  'order',
  'limit',
  'offset',
  'columns',
  'on_conflict',
  'and',
  'or',
  'not.and',
  'not.or',
])

function argumentsOf(request: RpcRequest): { args: Record<string, unknown>; strict: boolean } {
  if (request.method === 'POST') {
    const { payload } = request
    if (payload === undefined) return { args: {}, strict: true }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw restError(400, 'PGRST102', 'Empty or invalid json')
    }
    return { args: payload as Record<string, unknown>, strict: true }
  }
  const args: Record<string, unknown> = {}
  for (const [key, value] of request.url.searchParams) if (!RESERVED.has(key)) args[key] = value
  return { args, strict: false }
}

/**
 * Calls `public.<name>(arg => value, …)`: arguments are converted by Postgres from one JSON
 * parameter (jsonb_to_record with the declared types), results come back as PostgREST shapes
 * them (scalar, object, array; void → 204), and filters/order/limit apply to set results.
 */
export async function callFunction(request: RpcRequest): Promise<Outcome> {
  const { tx, name, accept, prefer } = request
  const { args, strict } = argumentsOf(request)
  const keys = Object.keys(args).filter(isIdentifier)
  const { fn, wholeBody, argNames } = await findFunction(tx, name, keys, strict, request.schema)
  const plan = parseQuery(request.url.searchParams, new Set(argNames))
  if (request.method !== 'POST') applyRangeHeader(plan, request.headers.get('range'))
  const params = new Params()
  let call: string
  let argsSource = ''
  if (wholeBody) {
    call = `public.${quote(name)}(${params.add(JSON.stringify(args))}::${fn.inputs[0].type})`
  } else {
    const inputs = fn.inputs.filter((input) => argNames.includes(input.name))
    if (inputs.length) {
      const definitions = inputs.map((input) => `${quote(input.name)} ${input.type}`).join(', ')
      const values = Object.fromEntries(inputs.map((input) => [input.name, args[input.name]]))
      argsSource = `jsonb_to_record(${params.add(JSON.stringify(values))}::jsonb) as pgrst_args(${definitions}), `
    }
    const named = inputs.map((input) => `${quote(input.name)} => pgrst_args.${quote(input.name)}`)
    call = `public.${quote(name)}(${named.join(', ')})`
  }
  const relation = fn.returnsRows ? name : 'pgrst_call'
  const from = ` from ${argsSource}${call} as ${fn.returnsRows ? quote(name) : 'pgrst_call(pgrst_scalar)'}`
  if (fn.returnsVoid) {
    await tx.query(`select 1${from}`, params.values)
    return { status: 204, body: null, headers: {} }
  }
  const where = fn.returnsRows ? renderWhere(relation, plan.where, params) : ''
  const columns = fn.returnsRows ? renderSelect(relation, plan.select) : 'pgrst_call.pgrst_scalar'
  const source = `select ${columns}${from}${where}${renderPaging(relation, fn.returnsRows ? plan : { ...plan, order: [] })}`
  const shape = { ...accept, singular: accept.singular || !fn.returnsSet }
  const value = fn.returnsRows ? undefined : 'pgrst_t.pgrst_scalar'
  const { rows } = await tx.query<BodyRow>(wrapBody(source, shape, value), params.values)
  let total: number | undefined
  if (prefer.count) {
    total = (
      await tx.query<{ total: number }>(
        `select count(*)::int as total${from}${where}`,
        params.values,
      )
    ).rows[0].total
  }
  const applied = prefer.applied.filter((preference) => preference.startsWith('count='))
  return readOutcome(rows[0], plan.offset, accept, total, applied)
}
