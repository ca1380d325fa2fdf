import { Pool } from 'undici'
import { getEnv } from '~/env.server'

/**
 * The server's hot database calls (the per-request session check, the webhooks' ledger
 * functions) as one plain HTTP request each to PostgREST's RPC endpoint on a kept-alive
 * connection, with the service-role key: the same request supabase-js sends (POST
 * /rest/v1/rpc/<name>, JSON arguments, JSON answer), without the client's query builder, its
 * auth wrapper and the WHATWG fetch machinery, which cost about as much app CPU as the rest
 * of a webhook or a signed-in page (docs/performance.md, "Where the time goes"). The requests
 * go through undici's connection pool (`Pool#request`, the client under Node's own fetch),
 * which costs about half the CPU per call of `node:http` with a kept-alive agent.
 *
 * The answer has supabase-js's shape, so callers and `databaseError` treat failures alike:
 * an error status gives PostgREST's JSON error (`code`, `message`, `details`, `hint`) plus
 * `status`; a network failure or no answer within the timeout gives the Error (its message
 * names ECONNREFUSED, a connection closed or reset ("other side closed", ECONNRESET), a timeout).
 *
 * The signed-in pages' reads go the same way, as the user: `apikey` is the anon key and
 * `Authorization` the user's own access token, so PostgREST runs them as `authenticated`
 * with RLS applied exactly as for supabase-js (`asUser`, `postgrestSelect`).
 */
const DEFAULT_TIMEOUT_MS = 10_000

interface Target {
  /** The SUPABASE_URL this target was made from. */
  url: string
  /** Kept-alive connections to PostgREST's origin. */
  pool: Pool
  /** The path of /rest/v1/ under SUPABASE_URL (which may have a path of its own). */
  base: string
  headers: Record<string, string>
  anonKey: string
}
let target: Target | undefined

function getTarget(): Target {
  const env = getEnv()
  if (target?.url === env.SUPABASE_URL) return target
  // A changed SUPABASE_URL (tests change it) gets a pool of its own; the old one lets its
  // in-flight requests finish, then closes.
  void target?.pool.close().catch(() => {})
  const url = new URL(`${env.SUPABASE_URL.replace(/\/+$/, '')}/rest/v1/`)
  target = {
    url: env.SUPABASE_URL,
    pool: new Pool(url.origin),
    base: url.pathname,
    headers: {
      apikey: env.SUPABASE_SERVICE_ROLE_KEY,
      authorization: `Bearer ${env.SUPABASE_SERVICE_ROLE_KEY}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    anonKey: env.SUPABASE_ANON_KEY,
  }
  return target
}

export interface PostgrestFailure {
  message: string
  code?: string | null
  details?: string | null
  hint?: string | null
  status?: number
}

export type RpcResult<T> =
  { data: T; error: null } | { data: null; error: PostgrestFailure | Error }

/** A signed-in user's access token: a request with it runs as them, under RLS. */
export interface AsUser {
  accessToken: string
}

interface CallOptions {
  timeoutMs?: number
  /** Run as this user (the anon key and their token) instead of the service role. */
  asUser?: AsUser
}

/**
 * Calls `public.<name>(args)`, as the service role unless `asUser`. With `get`, as
 * supabase-js' `{ get: true }`: a GET with the arguments in the query string, which PostgREST
 * runs in a read-only transaction (for plain scalar arguments). Never throws: failures are
 * in `error`.
 */
export function postgrestRpc<T>(
  name: string,
  args: Record<string, unknown>,
  options: CallOptions & { get?: boolean } = {},
): Promise<RpcResult<T>> {
  const call = options.get
    ? send<T>('GET', `rpc/${name}?${queryString(args)}`, null, options)
    : send<T>('POST', `rpc/${name}`, JSON.stringify(args), options)
  return call.catch((error: Error) => ({ data: null, error }))
}

/**
 * Reads rows of `public.<table>` as the user (RLS applies): `query` is PostgREST's
 * (`select`, filters such as `user_id: 'eq.<id>'`). The data is the array of rows. Never
 * throws: failures are in `error`.
 */
export function postgrestSelect<Row>(
  table: string,
  query: Record<string, string>,
  options: CallOptions & { asUser: AsUser },
): Promise<RpcResult<Row[]>> {
  return send<Row[]>('GET', `${table}?${queryString(query)}`, null, options).catch(
    (error: Error) => ({ data: null, error }),
  )
}

function queryString(args: Record<string, unknown>) {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(args)) query.append(name, String(value))
  return query.toString()
}

async function send<T>(
  method: 'GET' | 'POST',
  path: string,
  body: string | null,
  options: CallOptions,
  mayRetry = true,
): Promise<RpcResult<T>> {
  const target = getTarget()
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const headers: Record<string, string> = options.asUser
    ? {
        ...target.headers,
        apikey: target.anonKey,
        authorization: `Bearer ${options.asUser.accessToken}`,
      }
    : target.headers
  let status: number
  let text: string
  try {
    const response = await target.pool.request({
      path: `${target.base}${path}`,
      method,
      headers,
      body,
      // The whole call, from connecting to the last byte of the answer, has timeoutMs.
      signal: AbortSignal.timeout(timeoutMs),
    })
    status = response.statusCode
    text = await response.body.text()
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      throw new Error(`${path}: ETIMEDOUT after ${timeoutMs} ms`, { cause: error })
    }
    const code = (error as { code?: string }).code
    // A kept-alive connection the server closed just as this request went out ("other side
    // closed", a reset): once more on a fresh one. Safe for these calls: reads and the session
    // check have no effect, and the ledger answers a repeated event as a duplicate.
    if (mayRetry && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET')) {
      return send<T>(method, path, body, options, false)
    }
    throw error
  }
  let parsed: unknown
  try {
    parsed = text === '' ? null : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (status >= 200 && status < 300 && parsed !== undefined) {
    return { data: parsed as T, error: null }
  }
  const failure = parsed && typeof parsed === 'object' ? (parsed as Partial<PostgrestFailure>) : {}
  return {
    data: null,
    error: {
      message: failure.message ?? (text.slice(0, 200) || `HTTP ${status}`),
      code: failure.code ?? null,
      details: failure.details ?? null,
      hint: failure.hint ?? null,
      status,
    },
  }
}
