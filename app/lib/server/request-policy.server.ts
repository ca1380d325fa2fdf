import type { IncomingMessage, ServerResponse } from 'node:http'

import {
  CROSS_SITE_API_MESSAGE,
  CROSS_SITE_MESSAGE,
  crossSiteRefusal,
  type RequestHead,
} from './cross-site.server'
import { logger } from './logger.server'
import { RESOURCE_CSP } from './security-headers.server'

/** The request policy: a bad target or Host is 400, a cross-site post 403. */
export function requestPolicyMiddleware(
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) {
  const request = policyRequest(req)
  if (!request) return sendJson(res, 400, { error: 'Bad request' })
  const refused = requestPolicy(request)
  // An Origin left here is SITE_URL's: Remix's own guard would compare it with Host, which a
  // proxy may rewrite (nginx's default), and answer an empty 500.
  delete req.headers.origin
  if (!refused) return next()
  res.statusCode = refused.status
  refused.headers.forEach((value, name) => res.setHeader(name, value))
  refused
    .text()
    .then((body) => res.end(body))
    .catch(next)
}

/**
 * The request's head from Node's (a fetch `Request` costs more CPU than the policy), its URL as
 * Remix's adapter builds it; null (a 400) for a target or Host Remix would read otherwise.
 */
function policyRequest(req: IncomingMessage & { originalUrl?: string }): RequestHead | null {
  let path = req.originalUrl ?? req.url ?? '/'
  const host = req.headers.host ?? ''
  if (!/^\/(?![/\\])/.test(path) || !/^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/i.test(host))
    return null
  const [pathname, ...query] = path.split('?')
  try {
    decodeURIComponent(pathname)
  } catch {
    // Read literally, so no route matches it and Remix answers its not-found page without the
    // warnings it prints for a path it cannot decode.
    path = [pathname.replaceAll('%', '%25'), ...query].join('?')
    req.url = req.originalUrl = path
  }
  return {
    method: req.method ?? 'GET',
    // Only a request that may change state needs its URL (GETs go straight through).
    get url() {
      return new URL(`http://${host}${path}`).href
    },
    headers: {
      get(name: string) {
        const value = req.headers[name.toLowerCase()]
        if (value === undefined) return null
        return Array.isArray(value) ? value.join(', ') : value
      },
    },
  }
}

/** The request stack's last handler: an error no route answered is one log line and a bare 500. */
export function unexpectedError(
  error: unknown,
  _req: IncomingMessage,
  res: ServerResponse,
  _next: unknown,
) {
  logger.error({ err: error }, 'request failed')
  if (res.headersSent) return res.destroy()
  sendJson(res, 500, { error: 'Internal server error' })
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': text.length })
  res.end(text)
}

/** A cross-site request's 403 in its path's shape (a page for pages), or null; routes never check. */
export function requestPolicy(request: RequestHead): Response | null {
  if (!crossSiteRefusal(request)) return null
  const path = new URL(request.url).pathname
  // The other security headers are added on the way out, as to every answer.
  const headers = { 'Cache-Control': 'no-store' }
  if (path === '/api/contact') {
    return Response.json(
      { success: false, message: CROSS_SITE_API_MESSAGE },
      { status: 403, headers },
    )
  }
  if (path.startsWith('/api/') || path === '/sign-out' || path.startsWith('/auth/callback')) {
    return Response.json({ error: CROSS_SITE_API_MESSAGE }, { status: 403, headers })
  }
  return new Response(REFUSED_PAGE, {
    status: 403,
    headers: {
      ...headers,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': RESOURCE_CSP,
    },
  })
}

const REFUSED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Request refused | Subscribely</title></head>
<body><main><h1>Request refused</h1><p>${CROSS_SITE_MESSAGE}</p>
<p><a href="/">Go to Subscribely</a></p></main></body></html>
`
