import type { IncomingMessage, ServerResponse } from 'node:http'

import { allowedOrigin, BodyTooLarge, corsHeaders, type CorsPolicy, readBytes } from '../http'
import type { SupabaseFaults } from './faults'
import { passGateway, type ProjectKeys } from './gateway'
import { json, matchRoute, type Route } from './http'

export type Handler = (request: Request) => Promise<Response>

/** Supabase's own APIs, which browsers on any origin may call (as on Supabase); never the developer pages. */
const CORS: CorsPolicy = {
  paths: /^\/(auth|rest|storage)\/v1(\/|$)/,
  allowMethods: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
  allowHeaders:
    'authorization, apikey, x-client-info, x-supabase-api-version, content-type, content-profile, accept-profile, prefer, range, range-unit, x-upsert, cache-control, x-metadata',
  exposeHeaders: 'x-supabase-api-version, content-range, x-total-count, link, x-sb-error-code',
  maxAgeSeconds: 600,
}

/** Converts a Node request to a web Request against the emulator's public base URL. */
async function toRequest(req: IncomingMessage, baseUrl: string): Promise<Request> {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else if (value !== undefined) headers.set(name, value)
  }
  const method = req.method ?? 'GET'
  const body = method !== 'GET' && method !== 'HEAD' ? await readBytes(req) : undefined
  return new Request(new URL(req.url ?? '/', baseUrl), {
    method,
    headers,
    body: body ? new Uint8Array(body) : undefined,
  })
}

async function writeResponse(res: ServerResponse, response: Response, origin: string | undefined) {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers['set-cookie'] = cookies
  if (origin) Object.assign(headers, corsHeaders(CORS, origin))
  res.writeHead(response.status, headers)
  res.end(response.body ? Buffer.from(await response.arrayBuffer()) : undefined)
}

export interface Mounts {
  /** `peer`: the client's address, as the platform's edge sees it (the socket's). */
  auth: (request: Request, path: string, peer?: string) => Promise<Response>
  storage: (request: Request, path: string) => Promise<Response>
  rest: Handler
  pages: Route[]
  onAuthRequest: (path: string) => void
  onRestRequest?: (path: string) => void
  /** Injected faults (tests): applied before a request reaches Auth or PostgREST. */
  faults?: SupabaseFaults
  /** The project's API keys, which the gateway accepts (default: the published ones). */
  apiKeys?: ProjectKeys
}

/**
 * Dispatches one web Request to auth, rest, storage or the developer pages. The APIs are
 * behind the gateway (`gateway.ts`), which maps the new API keys to their roles.
 */
export async function dispatch(request: Request, mounts: Mounts, peer?: string): Promise<Response> {
  const path = new URL(request.url).pathname
  const injected = await mounts.faults?.apply(request, path)
  if (injected) return injected
  const api = /^\/(auth|rest|storage)\/v1(\/|$)/.exec(path)?.[1]
  if (!api) {
    const { handler, params } = matchRoute(mounts.pages, request.method, path)
    if (!handler) return json({ message: 'Not found' }, { status: 404 })
    return handler(request, params ?? {})
  }
  const gated = passGateway(request, mounts.apiKeys)
  if (gated instanceof Response) return gated
  const below = path.slice(`/${api}/v1`.length) || '/'
  if (api === 'auth') {
    mounts.onAuthRequest(below)
    return mounts.auth(gated, below, peer)
  }
  if (api === 'rest') {
    mounts.onRestRequest?.(below)
    return mounts.rest(gated)
  }
  return mounts.storage(gated, below)
}

/**
 * The node:http listener: CORS for browser clients of the APIs (never for the developer
 * pages: the inbox and the user list must not be readable by other websites), errors as
 * 500 JSON.
 */
export function createListener(baseUrl: () => string, mounts: Mounts) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname
    const header = typeof req.headers.origin === 'string' ? req.headers.origin : undefined
    const origin = allowedOrigin(CORS, path, header)
    void (async () => {
      try {
        if (req.method === 'OPTIONS') {
          const preflight = allowedOrigin(CORS, path, header, true)
          await writeResponse(res, new Response(null, { status: 204 }), preflight)
          return
        }
        const request = await toRequest(req, baseUrl())
        const peer = req.socket.remoteAddress
        await writeResponse(res, await dispatch(request, mounts, peer), origin)
      } catch (error) {
        if (error instanceof BodyTooLarge && !res.headersSent)
          return void (await writeResponse(
            res,
            json(
              { message: error.message, statusCode: '413', error: 'Payload too large' },
              { status: 413 },
            ),
            origin,
          ))
        console.error('[supabase emulator]', error)
        if (!res.headersSent)
          await writeResponse(
            res,
            json({ message: (error as Error).message }, { status: 500 }),
            origin,
          )
        else res.end()
      }
    })()
  }
}
