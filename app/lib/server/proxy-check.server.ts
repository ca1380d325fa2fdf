import type { IncomingMessage } from 'node:http'

import { getEnv } from '~/env.server'

import { logger } from './logger.server'

// `clientKey` reads only X-Forwarded-For; the others also say a proxy is in front.
const FORWARDED_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const

export type ProxyMismatch = 'forwarded-without-proxy' | 'proxy-without-forwarded'

/** Health checks are left out: platforms send them straight to the instance. */
export function proxyMismatch(
  headers: IncomingMessage['headers'],
  path: string,
  proxies: number,
): ProxyMismatch | null {
  if (path === '/healthz' || path.startsWith('/healthz?')) return null
  if (proxies < 1)
    return FORWARDED_HEADERS.some((name) => headers[name] !== undefined)
      ? 'forwarded-without-proxy'
      : null
  const header = headers['x-forwarded-for']
  const entries = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .filter((entry) => entry.trim() !== '')
  return entries.length < proxies ? 'proxy-without-forwarded' : null
}

function warning(kind: ProxyMismatch, proxies: number, from: string | undefined): string {
  if (kind === 'forwarded-without-proxy')
    return `TRUSTED_PROXY_COUNT is 0, but a request from ${from ?? 'an unknown address'} carried a forwarded-address header (X-Forwarded-For, Forwarded or X-Real-IP). If a proxy or load balancer is in front of this server, every client is being counted as the proxy's address (one shared rate-limit budget): set TRUSTED_PROXY_COUNT to the number of proxies (docs/operations.md). If not, a client sent the header itself; it is ignored.`
  return `TRUSTED_PROXY_COUNT is ${proxies}, but a request from ${from ?? 'an unknown address'} arrived with fewer than ${proxies} X-Forwarded-For address(es): it did not come through the configured proxies. A client that reaches this server directly can choose the address its rate limits count by sending X-Forwarded-For itself. Make the server reachable only through the proxy, or set TRUSTED_PROXY_COUNT to the number of proxies actually in front (0 for none; docs/operations.md).`
}

/** Warns once per kind; never changes how a request is handled. */
export function createProxyCheck(
  trustedProxies: () => number,
  warn: (message: string, fields: Record<string, unknown>) => void,
) {
  const warned = new Set<ProxyMismatch>()
  return (req: IncomingMessage, _res: unknown, next: () => void) => {
    const proxies = trustedProxies()
    const kind = proxyMismatch(req.headers, req.url ?? '/', proxies)
    if (kind && !warned.has(kind)) {
      warned.add(kind)
      warn(warning(kind, proxies, req.socket.remoteAddress), { check: 'trusted_proxy_count', kind })
    }
    next()
  }
}

/** Used by server-app.js. */
export const proxyCheckMiddleware = createProxyCheck(
  () => getEnv().TRUSTED_PROXY_COUNT,
  (message, fields) => logger.warn(fields, message),
)
