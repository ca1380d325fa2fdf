/**
 * CORS for an emulator's API paths: browsers on any origin may call them (as on the real
 * service); other paths (developer pages) get no CORS headers, so other sites cannot read them.
 */
export interface CorsPolicy {
  /** The paths that answer cross-origin requests. */
  paths: RegExp
  allowMethods: string
  allowHeaders: string
  exposeHeaders: string
  maxAgeSeconds: number
}

/** The origin to allow for this request, or undefined for no CORS headers. */
export function allowedOrigin(
  policy: CorsPolicy,
  path: string,
  origin: string | undefined,
  preflight = false,
) {
  if (!policy.paths.test(path)) return undefined
  return preflight ? (origin ?? '*') : origin
}

/** The headers that allow `origin` (from allowedOrigin). */
export function corsHeaders(policy: CorsPolicy, origin: string): Record<string, string> {
  return {
    'access-control-allow-methods': policy.allowMethods,
    'access-control-allow-headers': policy.allowHeaders,
    'access-control-expose-headers': policy.exposeHeaders,
    'access-control-max-age': String(policy.maxAgeSeconds),
    'access-control-allow-origin': origin,
    vary: 'Origin',
  }
}
