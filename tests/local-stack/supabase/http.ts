/** Small HTTP helpers shared by the emulator's routes (web Request/Response based). */

export const API_VERSION = '2024-01-01'

/** A route handler: gets the request and the path below its mount point. */
export type RouteHandler = (request: Request, params: Record<string, string>) => Promise<Response>

export interface Route {
  method: string
  pattern: RegExp
  handler: RouteHandler
}

/** Builds a route; `:name` segments become params, a trailing `*` matches the rest as `rest`. */
export function route(method: string, path: string, handler: RouteHandler): Route {
  const source = path
    .split('/')
    .map((part) => {
      if (part === '*') return '(?<rest>.*)'
      if (part.startsWith(':')) return `(?<${part.slice(1)}>[^/]+)`
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('/')
  return { method, pattern: new RegExp(`^${source}$`), handler }
}

/** Finds the route for a method and path: the handler, or 405/404 information. */
export function matchRoute(routes: Route[], method: string, path: string) {
  let pathMatched = false
  for (const candidate of routes) {
    const match = candidate.pattern.exec(path)
    if (!match) continue
    pathMatched = true
    if (candidate.method !== method && !(method === 'HEAD' && candidate.method === 'GET')) continue
    const params: Record<string, string> = {}
    for (const [key, value] of Object.entries(match.groups ?? {}))
      params[key] = decodeURIComponent(value ?? '')
    return { handler: candidate.handler, params }
  }
  return { handler: undefined, pathMatched }
}

export function json(body: unknown, init: ResponseInit = {}) {
  const headers = new Headers(init.headers)
  headers.set('content-type', 'application/json; charset=utf-8')
  return new Response(JSON.stringify(body), { ...init, headers })
}

export function html(body: string, init: ResponseInit = {}) {
  const headers = new Headers(init.headers)
  headers.set('content-type', 'text/html; charset=utf-8')
  return new Response(body, { ...init, headers })
}

export function redirect(location: string, status = 302) {
  return new Response(null, { status, headers: { location } })
}

/** Reads a JSON object body; an empty or invalid body gives {}. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text()
  if (!text.trim()) return {}
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
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

export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
}
