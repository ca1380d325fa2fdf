import type { Database } from '../../database'
import { authenticate, type RequestAuth } from './auth'
import { restError, toRestError } from './errors'
import { createRestPool, type RestPool, type RestPoolOptions } from './pool'
import { checkProfile, parseAccept, parsePrefer, parseQuery } from './request'
import { errorResponse, type Outcome, toResponse } from './response'
import { callFunction } from './rpc'
import { SchemaCache } from './schema'
import { deleteRows, insertRows, readRows, updateRows } from './table'

type Route = { kind: 'table' | 'rpc'; name: string; path: string }

function route(pathname: string): Route {
  const path = pathname.replace(/^\/rest\/v1/, '') || '/'
  const rpc = /^\/rpc\/([^/]+)\/?$/.exec(path)
  if (rpc) return { kind: 'rpc', name: decodeURIComponent(rpc[1]), path }
  const table = /^\/([^/]+)\/?$/.exec(path)
  if (table) return { kind: 'table', name: decodeURIComponent(table[1]), path }
  throw restError(404, 'PGRST125', `Invalid path specified in request URL`)
}

async function readJson(request: Request, required: boolean): Promise<unknown> {
  const text = await request.text()
  if (text.trim() === '') {
    if (required) throw restError(400, 'PGRST102', 'Empty or invalid json')
    return undefined
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw restError(400, 'PGRST102', 'Empty or invalid json')
  }
}

function cookies(header: string | null) {
  const entries = (header ?? '').split(';').flatMap((pair) => {
    const index = pair.indexOf('=')
    return index > 0 ? [[pair.slice(0, index).trim(), pair.slice(index + 1).trim()]] : []
  })
  return Object.fromEntries(entries)
}

/** PostgREST's transaction-local context: role, claims and request.*, for grants and RLS. */
function requestContext(auth: RequestAuth, request: Request, path: string) {
  const headers = Object.fromEntries(
    [...request.headers].map(([key, value]) => [key.toLowerCase(), value]),
  )
  return {
    search_path: 'public, extensions',
    role: auth.role,
    'request.jwt.claims': JSON.stringify(auth.claims),
    'request.method': request.method.toUpperCase(),
    'request.path': path,
    'request.headers': JSON.stringify(headers),
    'request.cookies': JSON.stringify(cookies(request.headers.get('cookie'))),
  }
}

async function serve(
  database: Database,
  pool: RestPool,
  schema: SchemaCache,
  request: Request,
  auth: RequestAuth,
): Promise<Response> {
  const url = new URL(request.url)
  const method = request.method.toUpperCase()
  const target = route(url.pathname)
  const allowed =
    target.kind === 'rpc' ? ['GET', 'HEAD', 'POST'] : ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE']
  if (!allowed.includes(method)) {
    if (target.kind === 'rpc')
      throw restError(405, 'PGRST101', 'Cannot use the ' + method + ' method on RPC')
    throw restError(405, 'PGRST117', `Unsupported HTTP method: ${method}`)
  }
  checkProfile(request.headers, method)
  const accept = parseAccept(request.headers.get('accept'))
  const prefer = parsePrefer(request.headers.get('prefer'))
  const readOnly = method === 'GET' || method === 'HEAD'
  const payload = readOnly
    ? undefined
    : await readJson(request, target.kind === 'table' && method !== 'DELETE')
  const context = { readOnly, settings: requestContext(auth, request, target.path) }
  // The transaction holds one of the pool's connections; waiting too long for one is a 504.
  const outcome = await pool.use(() =>
    database.transaction(async (tx): Promise<Outcome> => {
      if (target.kind === 'rpc')
        return callFunction({ tx, name: target.name, method, url, payload, accept, schema })
      const table = await schema.table(tx, target.name)
      const tableRequest = { tx, table, plan: parseQuery(url.searchParams), accept, prefer }
      if (readOnly) return readRows(tableRequest)
      if (method === 'POST') return insertRows(tableRequest, payload)
      if (method === 'PATCH') return updateRows(tableRequest, payload)
      return deleteRows(tableRequest)
    }, context),
  )
  return toResponse(method, accept, outcome)
}

/** `/rest/v1/*`: one transaction per request as the JWT's role; never throws. */
export function createRestHandler(options: {
  database: Database
  /** PostgREST's connection pool (`db-pool`, `db-pool-acquisition-timeout`): pool.ts. */
  pool?: RestPoolOptions
}): (request: Request) => Promise<Response> {
  const schema = new SchemaCache()
  const pool = createRestPool(options.pool)
  return async (request) => {
    let authenticated = false
    try {
      const auth = await authenticate(request.headers)
      authenticated = auth.authenticated
      return await serve(options.database, pool, schema, request, auth)
    } catch (error) {
      return errorResponse(request.method.toUpperCase(), toRestError(error, authenticated))
    }
  }
}
