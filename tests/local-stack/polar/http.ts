import type { IncomingMessage, ServerResponse } from 'node:http'

import * as toolkit from '../http'
import { RouteTable } from '../http'

export { readText as readBody } from '../http'

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

/** Method + path router with `:param` segments (the local stack's route table). */
export class Router {
  private readonly table = new RouteTable<Handler>()

  on(method: string, path: string, handler: Handler) {
    this.table.on(method, path, handler)
    return this
  }

  /** `METHOD /path` of every route, in the order they were added. */
  describe() {
    return this.table.describe()
  }

  /** Finds the handler; `redirectTo` is set when only the trailing-slash variant exists (FastAPI 307). */
  match(
    method: string,
    path: string,
  ): { handler?: Handler; params: Record<string, string>; redirectTo?: string } {
    const { found } = this.table.match(method, path)
    if (found) return { handler: found.handler, params: found.params }
    if (!path.endsWith('/') && this.table.match(method, `${path}/`).found) {
      return { params: {}, redirectTo: `${path}/` }
    }
    return { params: {} }
  }
}

/** JSON as Polar sends it: compact, with its length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  toolkit.sendJson(res, status, body, { contentLength: true, headers })
}

export function sendHtml(res: ServerResponse, status: number, html: string) {
  toolkit.sendHtml(res, status, html, { contentLength: true })
}

export function redirect(res: ServerResponse, location: string, status = 303) {
  toolkit.redirect(res, location, status, { contentLength: true })
}

/** Reads a string field from a JSON or form body. */
export function field(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object') return undefined
  const value = (body as Record<string, unknown>)[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}
