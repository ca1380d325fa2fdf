import type { ServerResponse } from 'node:http'

import * as toolkit from '../http'

export interface Req {
  query: URLSearchParams
  params: Record<string, string>
  isForm: boolean
  body: unknown
}

export type Handler = (req: Req, res: ServerResponse) => void | Promise<void>

export type Router = toolkit.RouteTable<Handler>

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
    readonly detail: {
      type: string
      loc: (string | number)[]
      msg: string
      input?: unknown
    }[],
  ) {
    super('Validation failed')
  }
}

export function bodyError(loc: string | (string | number)[], msg: string, input: unknown) {
  return new ValidationFailed([{ type: 'value_error', loc: ['body', loc].flat(), msg, input }])
}

export function notFound(detail = 'Not found') {
  return new ApiError(404, 'ResourceNotFound', detail)
}

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

export function redirect(res: ServerResponse, location: string) {
  toolkit.redirect(res, location, 303, { contentLength: true })
}

export function field(body: unknown, name: string): string | undefined {
  if (!body || typeof body !== 'object') return undefined
  const value = (body as Record<string, unknown>)[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}
