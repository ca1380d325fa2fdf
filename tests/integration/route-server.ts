import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { requestPolicyMiddleware } from '../../app/lib/request-policy.server'

type Handler = (args: {
  request: Request
  params: Record<string, string>
  context: Record<string, unknown>
}) => unknown
export interface RouteModule {
  loader?: Handler
  action?: Handler
}

function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers()
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(key, item)
    else if (value !== undefined) headers.set(key, value)
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
    duplex: 'half',
  } as RequestInit)
}

/**
 * Serves Remix route modules over real HTTP on loopback, the way the production server calls
 * them (the request policy first, then the loader for GET/HEAD, the action otherwise), so the
 * emulators can deliver webhooks to the app's real route handlers in integration tests.
 */
export async function startRouteServer(routes: Record<string, RouteModule>) {
  let origin = ''
  const server: Server = createServer((req, res) => {
    requestPolicyMiddleware(req, res, (error) => {
      if (error) res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error))
      else void serve(req, res)
    })
  })
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const request = toRequest(req, origin)
      const route = routes[new URL(request.url).pathname]
      if (!route) {
        res.writeHead(404).end('not found')
        return
      }
      const handler =
        request.method === 'GET' || request.method === 'HEAD' ? route.loader : route.action
      if (!handler) {
        res.writeHead(405).end()
        return
      }
      let result: unknown
      try {
        result = await handler({ request, params: {}, context: {} })
      } catch (thrown) {
        result = thrown
      }
      if (!(result instanceof Response)) throw result
      const headers: Record<string, string | string[]> = {}
      result.headers.forEach((value, key) => {
        if (key !== 'set-cookie') headers[key] = value
      })
      // One request per connection: a handler may answer (413) before reading the whole
      // body, and a reused socket would then be reset under the next request.
      headers.connection = 'close'
      const cookies = result.headers.getSetCookie()
      if (cookies.length) headers['set-cookie'] = cookies
      res.writeHead(result.status, headers)
      res.end(Buffer.from(await result.arrayBuffer()))
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error))
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  origin = `http://localhost:${port}`
  return {
    origin,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
