import http from 'node:http'
import https from 'node:https'
import { getEnv } from '~/env.server'

/**
 * The per-request session check (`session_is_active`, docs/security.md, "Sessions") as one
 * plain HTTP request to PostgREST on a kept-alive connection, instead of a call through
 * supabase-js: the same request on the wire (POST /rest/v1/rpc/session_is_active with the
 * service-role key, JSON arguments, JSON `true`/`false` back), without the client's builder,
 * its auth wrapper and the WHATWG fetch machinery, which cost about as much app CPU as the
 * rest of a signed-in page (docs/performance.md, "Where the time goes").
 */
const TIMEOUT_MS = 5_000

interface Target {
  url: URL
  send: typeof http.request
  agent: http.Agent
  headers: Record<string, string>
}
let target: Target | undefined

function getTarget(): Target {
  if (target) return target
  const env = getEnv()
  const url = new URL(`${env.SUPABASE_URL}/rest/v1/rpc/session_is_active`)
  const secure = url.protocol === 'https:'
  target = {
    url,
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

/**
 * Whether the session exists and belongs to the user. Rejects (never answers "yes") when
 * PostgREST cannot answer: an error status, a network error, or no answer within 5 s.
 */
export function isSessionActive(sessionId: string, userId: string): Promise<boolean> {
  const body = JSON.stringify({ p_session_id: sessionId, p_user_id: userId })
  return post(body, true)
}

function post(body: string, mayRetry: boolean): Promise<boolean> {
  const { url, send, agent, headers } = getTarget()
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: TIMEOUT_MS,
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('error', reject)
        response.on('end', () => {
          if (response.statusCode !== 200) {
            reject(
              new Error(
                `session check: PostgREST answered ${response.statusCode}: ${text.slice(0, 200)}`,
              ),
            )
          } else {
            resolve(text.trim() === 'true')
          }
        })
      },
    )
    request.on('timeout', () => request.destroy(new Error('session check timed out')))
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the server closed just as this request went out: once more
      // on a fresh one (Node's documented pattern; the lookup has no side effect).
      if (mayRetry && request.reusedSocket && error.code === 'ECONNRESET') {
        post(body, false).then(resolve, reject)
      } else {
        reject(error)
      }
    })
    request.end(body)
  })
}
