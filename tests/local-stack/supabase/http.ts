import * as toolkit from '../http'

export { escapeHtml, htmlResponse as html, jsonResponse as json } from '../http'

export const API_VERSION = '2024-01-01'

/** A route handler: gets the request and the path's params (`:name`, a trailing `*` as `rest`). */
export type RouteHandler = (request: Request, params: Record<string, string>) => Promise<Response>
export type Route = toolkit.Route<RouteHandler>
export const route = (method: string, path: string, handler: RouteHandler): Route =>
  toolkit.route(method, path, handler)

/** The route for a method and path (HEAD uses GET's); `pathMatched` tells a 405 from a 404. */
export function matchRoute(routes: Route[], method: string, path: string) {
  const { found, pathMatched } = toolkit.matchRoute(routes, method, path, { headAsGet: true })
  return { handler: found?.handler, params: found?.params ?? {}, pathMatched }
}

export const redirect = (location: string, status = 302) =>
  new Response(null, { status, headers: { location } })

/** A JSON object body; an empty or invalid body gives {}. */
export const readJsonObject = async (request: Request) =>
  toolkit.parseJsonObject(await request.text())

export function stringField(body: Record<string, unknown>, key: string) {
  const value = body[key]
  return typeof value === 'string' ? value : undefined
}

export function objectField(body: Record<string, unknown>, key: string) {
  const value = body[key]
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

export function bearerToken(request: Request) {
  return /^bearer\s+(.+)$/i.exec((request.headers.get('authorization') ?? '').trim())?.[1]
}
