import type { Queryable } from '../../database'
import { parseError, restError } from './errors'
import { parseSelect } from './grammar'
import type { Accept } from './request'
import { type BodyRow, type Outcome, readOutcome } from './response'
import { findFunction, type SchemaCache } from './schema'
import { Params, quote, renderSelect, wrapBody } from './sql'

/** An RPC call: POST with a JSON object of named arguments, or GET/HEAD with query arguments. */
export interface RpcRequest {
  tx: Queryable
  name: string
  method: string
  url: URL
  /** POST body (already parsed); undefined for GET/HEAD. */
  payload: unknown
  accept: Accept
  schema: SchemaCache
}

/** The named arguments; filters, order and limit on a function's result are not emulated. */
function argumentsOf({ method, payload, url }: RpcRequest): Record<string, unknown> {
  const query = [...url.searchParams].filter(([key]) => key !== 'select')
  if (method !== 'POST') return Object.fromEntries(query)
  if (query.length)
    throw parseError(
      `"${url.search}"`,
      'Not supported on functions by the local PostgREST stand-in',
    )
  if (payload === undefined) return {}
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw restError(400, 'PGRST102', 'Empty or invalid json')
  return payload as Record<string, unknown>
}

/**
 * Calls `public.<name>(arg => value, …)`: arguments are converted by Postgres from one JSON
 * parameter (jsonb_to_record with the declared types), results come back as PostgREST shapes
 * them (scalar, object, array; void → 204).
 */
export async function callFunction(request: RpcRequest): Promise<Outcome> {
  const { tx, name, accept } = request
  const args = argumentsOf(request)
  const fn = await findFunction(tx, name, Object.keys(args), request.schema)
  const params = new Params()
  const inputs = fn.inputs.filter((input) => input.name in args)
  let argsSource = ''
  if (inputs.length) {
    const definitions = inputs.map((input) => `${quote(input.name)} ${input.type}`).join(', ')
    const values = Object.fromEntries(inputs.map((input) => [input.name, args[input.name]]))
    argsSource = `jsonb_to_record(${params.add(JSON.stringify(values))}::jsonb) as pgrst_args(${definitions}), `
  }
  const named = inputs.map((input) => `${quote(input.name)} => pgrst_args.${quote(input.name)}`)
  const call = `public.${quote(name)}(${named.join(', ')})`
  const from = ` from ${argsSource}${call} as ${fn.returnsRows ? quote(name) : 'pgrst_call(pgrst_scalar)'}`
  if (fn.returnsVoid) {
    await tx.query(`select 1${from}`, params.values)
    return { status: 204, body: null, headers: {} }
  }
  const select = parseSelect(request.url.searchParams.get('select'))
  const columns = fn.returnsRows ? renderSelect(name, select) : 'pgrst_call.pgrst_scalar'
  const shape = { singular: accept.singular || !fn.returnsSet }
  const value = fn.returnsRows ? undefined : 'pgrst_t.pgrst_scalar'
  const { rows } = await tx.query<BodyRow>(
    wrapBody(`select ${columns}${from}`, shape, value),
    params.values,
  )
  return readOutcome(rows[0], accept, undefined, [])
}
