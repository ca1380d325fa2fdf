import type { IncomingMessage, ServerResponse } from 'node:http'

import { BodyTooLarge, readBytes } from '../http'
import type { SupabaseFaults } from './faults'
import { passGateway, type ProjectKeys } from './gateway'
import { json, matchRoute, type Route } from './http'

export type Handler = (request: Request) => Promise<Response>

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

async function writeResponse(res: ServerResponse, response: Response) {
  const headers: Record<string, string | string[]> = {}
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value
  })
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) headers['set-cookie'] = cookies
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

/** Dispatches a request to the pages, or through the gateway to auth, rest or storage. */
export async function dispatch(request: Request, mounts: Mounts, peer?: string): Promise<Response> {
  const path = new URL(request.url).pathname
  const injected = await mounts.faults?.apply(request, path)
  if (injected) return injected
  const api = /^\/(auth|rest|storage)\/v1(\/|$)/.exec(path)?.[1]
  if (!api) {
    const { handler, params } = matchRoute(mounts.pages, request.method, path)
    if (!handler) return json({ message: 'Not found' }, { status: 404 })
    return handler(request, params)
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

/** The node:http listener: errors as 500 JSON. */
export function createListener(baseUrl: () => string, mounts: Mounts) {
  return (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      try {
        const request = await toRequest(req, baseUrl())
        const peer = req.socket.remoteAddress
        await writeResponse(res, await dispatch(request, mounts, peer))
      } catch (error) {
        if (error instanceof BodyTooLarge && !res.headersSent)
          return void (await writeResponse(
            res,
            json(
              { message: error.message, statusCode: '413', error: 'Payload too large' },
              { status: 413 },
            ),
          ))
        console.error('[supabase emulator]', error)
        if (!res.headersSent)
          await writeResponse(res, json({ message: (error as Error).message }, { status: 500 }))
        else res.end()
      }
    })()
  }
}
