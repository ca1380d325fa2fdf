/** Small HTTP helpers shared by the emulator's routes (web Request/Response based). */
import * as toolkit from '../http'

export const API_VERSION = '2024-01-01'

/** A route handler: gets the request and the path below its mount point. */
export type RouteHandler = (request: Request, params: Record<string, string>) => Promise<Response>

export type Route = toolkit.Route<RouteHandler>

/** Builds a route; `:name` segments become params, a trailing `*` matches the rest as `rest`. */
export function route(method: string, path: string, handler: RouteHandler): Route {
  return toolkit.route(method, path, handler)
}

/** Finds the route for a method and path (HEAD uses GET's): the handler, or 405/404 information. */
export function matchRoute(routes: Route[], method: string, path: string) {
  const { found, pathMatched } = toolkit.matchRoute(routes, method, path, { headAsGet: true })
  if (found) return { handler: found.handler, params: found.params }
  return { handler: undefined, pathMatched }
}

export { htmlResponse as html, jsonResponse as json } from '../http'

export function redirect(location: string, status = 302) {
  return new Response(null, { status, headers: { location } })
}

/** Reads a JSON object body; an empty or invalid body gives {}. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  return toolkit.parseJsonObject(await request.text())
}

export function stringField(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key]
  return typeof value === 'string' ? value : undefined
}

export function objectField(
  body: Record<string, unknown>,
  key: string,
): Record<string, unknown> | undefined {
  const value = body[key]
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** The bearer token of a request, if any. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization') ?? ''
  const match = /^bearer\s+(.+)$/i.exec(header.trim())
  return match?.[1]
}

export { escapeHtml } from '../http'
