import type { IncomingMessage, ServerResponse } from 'node:http'

/** A request as the route handlers see it. */
export interface Req {
  method: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
  params: Record<string, string>
  rawBody: string
  /** True when the body was an HTML form post. */
  isForm: boolean
  /** Parsed JSON body, or the form fields as an object. */
  body: unknown
  wantsJson: boolean
}

export type Handler = (req: Req, res: ServerResponse) => void | Promise<void>

interface Route {
  method: string
  path: string
  pattern: RegExp
  keys: string[]
  handler: Handler
}

/** Thrown by handlers for an error answer in Polar's shape `{error, detail}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly detail: string,
  ) {
    super(detail)
  }
}

/** Thrown for a FastAPI validation error: 422 `{detail: [{loc, msg, type, input}]}`. */
export class ValidationFailed extends Error {
  constructor(
    readonly detail: { type: string; loc: (string | number)[]; msg: string; input?: unknown }[],
  ) {
    super('Validation failed')
  }
}

export function notFound(detail = 'Not found') {
  return new ApiError(404, 'ResourceNotFound', detail)
}

/** Minimal method + path router with `:param` segments. */
export class Router {
  private routes: Route[] = []

  on(method: string, path: string, handler: Handler) {
    const keys: string[] = []
    const source = path.replace(/:(\w+)/g, (_, key: string) => {
      keys.push(key)
      return '([^/]+)'
    })
    this.routes.push({ method, path, pattern: new RegExp(`^${source}$`), keys, handler })
    return this
  }

  /** `METHOD /path` of every route, in the order they were added. */
  describe() {
    return this.routes.map((route) => `${route.method} ${route.path}`)
  }

  /** Finds the handler; `redirectTo` is set when only the trailing-slash variant exists (FastAPI 307). */
  match(
    method: string,
    path: string,
  ): { handler?: Handler; params: Record<string, string>; redirectTo?: string } {
    for (const route of this.routes) {
      if (route.method !== method) continue
      const found = route.pattern.exec(path)
      if (!found) continue
      const params = Object.fromEntries(
        route.keys.map((key, i) => [key, decodeURIComponent(found[i + 1])]),
      )
      return { handler: route.handler, params }
    }
    if (
      !path.endsWith('/') &&
      this.routes.some((r) => r.method === method && r.pattern.test(`${path}/`))
    ) {
      return { params: {}, redirectTo: `${path}/` }
    }
    return { params: {} }
  }
}

export async function readBody(req: IncomingMessage) {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  })
  res.end(text)
}

export function sendHtml(res: ServerResponse, status: number, html: string) {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
  })
  res.end(html)
}

export function redirect(res: ServerResponse, location: string, status = 303) {
  res.writeHead(status, { location, 'content-length': 0 })
  res.end()
}

/** Reads a string field from a JSON or form body. */
export function field(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object') return undefined
  const value = (body as Record<string, unknown>)[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}
