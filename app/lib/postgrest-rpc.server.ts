import http from 'node:http'
import https from 'node:https'
import { getEnv } from '~/env.server'

/**
 * The server's hot database calls (the per-request session check, the webhooks' ledger
 * functions) as one plain HTTP request each to PostgREST's RPC endpoint on a kept-alive
 * connection, with the service-role key: the same request supabase-js sends (POST
 * /rest/v1/rpc/<name>, JSON arguments, JSON answer), without the client's query builder, its
 * auth wrapper and the WHATWG fetch machinery, which cost about as much app CPU as the rest
 * of a webhook or a signed-in page (docs/performance.md, "Where the time goes").
 *
 * The answer has supabase-js's shape, so callers and `databaseError` treat failures alike:
 * an error status gives PostgREST's JSON error (`code`, `message`, `details`, `hint`) plus
 * `status`; a network failure or no answer within the timeout gives the Error (its message
 * names ECONNREFUSED, ECONNRESET, a timeout).
 */
const DEFAULT_TIMEOUT_MS = 10_000

interface Target {
  /** The SUPABASE_URL this target was made from. */
  url: string
  /** Host, port and path prefix, parsed once: a URL string would be parsed on every call. */
  hostname: string
  port: string
  base: string
  send: typeof http.request
  agent: http.Agent
  headers: Record<string, string>
}
let target: Target | undefined

function getTarget(): Target {
  const env = getEnv()
  if (target?.url === env.SUPABASE_URL) return target
  const url = new URL(env.SUPABASE_URL)
  const secure = url.protocol === 'https:'
  target = {
    url: env.SUPABASE_URL,
    // An IPv6 literal is bracketed in a URL, not in a host name.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port,
    base: `${url.pathname.replace(/\/+$/, '')}/rest/v1/rpc/`,
    send: secure ? https.request : http.request,
    agent: secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true }),
    headers: {
      apikey: env.SUPABASE_SERVICE_ROLE_KEY,
      authorization: `Bearer ${env.SUPABASE_SERVICE_ROLE_KEY}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
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

/** Calls `public.<name>(args)` as the service role. Never throws: failures are in `error`. */
export function postgrestRpc<T>(
  name: string,
  args: Record<string, unknown>,
  options: { timeoutMs?: number } = {},
): Promise<RpcResult<T>> {
  const body = JSON.stringify(args)
  return post<T>(name, body, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, true).catch(
    (error: Error) => ({ data: null, error }),
  )
}

function post<T>(name: string, body: string, timeoutMs: number, mayRetry: boolean) {
  const { hostname, port, base, send, agent, headers } = getTarget()
  return new Promise<RpcResult<T>>((resolve, reject) => {
    const request = send(
      {
        hostname,
        port,
        path: `${base}${name}`,
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: timeoutMs,
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('error', reject)
        response.on('end', () => {
          const status = response.statusCode ?? 0
          let parsed: unknown
          try {
            parsed = text === '' ? null : JSON.parse(text)
          } catch {
            parsed = undefined
          }
          if (status >= 200 && status < 300 && parsed !== undefined) {
            resolve({ data: parsed as T, error: null })
          } else {
            const failure =
              parsed && typeof parsed === 'object' ? (parsed as Partial<PostgrestFailure>) : {}
            resolve({
              data: null,
              error: {
                message: failure.message ?? (text.slice(0, 200) || `HTTP ${status}`),
                code: failure.code ?? null,
                details: failure.details ?? null,
                hint: failure.hint ?? null,
                status,
              },
            })
          }
        })
      },
    )
    request.on('timeout', () =>
      request.destroy(new Error(`${name}: ETIMEDOUT after ${timeoutMs} ms`)),
    )
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed just as this request went out: once more
      // on a fresh one (Node's documented pattern). Safe for these calls: the session check
      // has no effect, and the ledger answers a repeated event as a duplicate.
      if (mayRetry && request.reusedSocket && error.code === 'ECONNRESET') {
        post<T>(name, body, timeoutMs, false).then(resolve, reject)
      } else {
        reject(error)
      }
    })
    request.end(body)
  })
}
