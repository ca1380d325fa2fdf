import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SendOptions {
  /** Extra headers, written after (and able to override) the content type. */
  headers?: Record<string, string | number>
  /** Send `content-length` (otherwise the body is chunked). */
  contentLength?: boolean
}

export function send(
  res: ServerResponse,
  status: number,
  contentType: string | undefined,
  text: string,
  options: SendOptions = {},
) {
  res.writeHead(status, {
    ...(contentType ? { 'content-type': contentType } : {}),
    ...(options.contentLength ? { 'content-length': Buffer.byteLength(text) } : {}),
    ...options.headers,
  })
  res.end(text)
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  options: SendOptions & { indent?: number } = {},
) {
  send(res, status, 'application/json', JSON.stringify(body, null, options.indent), options)
}

export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  options: SendOptions = {},
) {
  send(res, status, 'text/html; charset=utf-8', html, options)
}

/** A redirect with no body (303 by default: "see other" after a form post). */
export function redirect(
  res: ServerResponse,
  location: string,
  status = 303,
  options: SendOptions = {},
) {
  res.writeHead(status, {
    location,
    ...(options.contentLength ? { 'content-length': 0 } : {}),
    ...options.headers,
  })
  res.end()
}

export function jsonResponse(body: unknown, init: ResponseInit = {}) {
  const headers = new Headers(init.headers)
  headers.set('content-type', 'application/json; charset=utf-8')
  return new Response(JSON.stringify(body), { ...init, headers })
}

export function htmlResponse(body: string, init: ResponseInit = {}) {
  const headers = new Headers(init.headers)
  headers.set('content-type', 'text/html; charset=utf-8')
  return new Response(body, { ...init, headers })
}

export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

/** A server on 127.0.0.1 (a free port by default); an error before any answer goes to `fail`. */
export async function listen(
  port: number | undefined,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  fail: (error: unknown, res: ServerResponse) => void,
) {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => (res.headersSent ? res.destroy() : fail(error, res)))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port ?? 0, '127.0.0.1', () => resolve())
  })
  return {
    port: (server.address() as AddressInfo).port,
    close() {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
