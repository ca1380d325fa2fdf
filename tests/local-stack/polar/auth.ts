import type { IncomingMessage } from 'node:http'

/**
 * Access tokens, scopes and API versions as Polar's API checks them.
 *
 * - Tokens: polarsource/polar `server/polar/auth/middlewares.py` (`get_auth_subject`): no
 *   token → the route's `Unauthorized` (401 `{"error":"Unauthorized","detail":"Unauthorized"}`);
 *   a token the server does not know (another server's, a revoked one) → authlib's
 *   `InvalidTokenError`: 401 `{"error":"invalid_token","error_description":…}` with
 *   `WWW-Authenticate: Bearer realm="polar", error="invalid_token", …`.
 * - Scopes: `server/polar/auth/dependencies.py` (`_Authenticator`): a request passes with at
 *   least one of the route's scopes, else authlib's `InsufficientScopeError`: 403
 *   `{"error":"insufficient_scope",…}`. The route scopes are each module's `auth.py`
 *   (`server/polar/{checkout,customer,customer_session,product,subscription,order}/auth.py`).
 * - `Polar-Version`: `server/polar/kit/versioning.py` (`APIVersionMiddleware`): absent → the
 *   current version; not `YYYY-MM` or not a served version (`server/polar/version.py`) →
 *   404 `{"detail":"Not Found"}`. Every answer names the version in `Polar-Version`.
 */

export const SERVED_VERSIONS = ['2026-04', '2026-10'] as const
export const CURRENT_VERSION = '2026-04'

/**
 * The scopes the product's access token is created with (docs/polar.md, "Access token"):
 * a write scope also grants reading, except for orders (`orders:read` only).
 */
export const PRODUCT_TOKEN_SCOPES = [
  'checkouts:write',
  'customer_sessions:write',
  'customers:write',
  'orders:read',
  'subscriptions:write',
  'webhooks:read',
] as const

/** Every scope the stand-in's routes check (for tests of the stand-in itself). */
export const ALL_SCOPES = [
  'checkouts:read',
  'checkouts:write',
  'customer_sessions:write',
  'customers:read',
  'customers:write',
  'orders:read',
  'orders:write',
  'products:read',
  'products:write',
  'subscriptions:read',
  'subscriptions:write',
  'webhooks:read',
  'webhooks:write',
] as const

/** Scopes that let a request through each `/v1` route (any one of them). */
const ROUTE_SCOPES: [method: string, pattern: RegExp, scopes: string[]][] = [
  ['GET', /^\/v1\/products\//, ['products:read', 'products:write']],
  ['GET', /^\/v1\/checkouts\//, ['checkouts:read', 'checkouts:write']],
  ['*', /^\/v1\/checkouts\//, ['checkouts:write']],
  ['*', /^\/v1\/customer-sessions\//, ['customer_sessions:write']],
  ['GET', /^\/v1\/customers\//, ['customers:read', 'customers:write']],
  ['*', /^\/v1\/customers\//, ['customers:write']],
  ['GET', /^\/v1\/subscriptions\//, ['subscriptions:read', 'subscriptions:write']],
  ['*', /^\/v1\/subscriptions\//, ['subscriptions:write']],
  // Generating an invoice is `OrdersRead` too (server/polar/order/endpoints.py).
  ['*', /^\/v1\/orders\/[^/]+\/invoice$/, ['orders:read']],
  ['GET', /^\/v1\/orders\//, ['orders:read']],
  ['*', /^\/v1\/orders\//, ['orders:write']],
  ['GET', /^\/v1\/webhooks\//, ['webhooks:read', 'webhooks:write']],
  ['*', /^\/v1\/webhooks\//, ['webhooks:write']],
]

export function requiredScopes(method: string, path: string): string[] {
  const withSlash = path.endsWith('/') ? path : `${path}/`
  for (const [routeMethod, pattern, scopes] of ROUTE_SCOPES) {
    if (routeMethod !== '*' && routeMethod !== method) continue
    if (pattern.test(path) || pattern.test(withSlash)) return scopes
  }
  return []
}

export type AuthOutcome =
  { ok: true } | { ok: false; status: number; body: unknown; headers: Record<string, string> }

const INVALID_TOKEN =
  'The access token provided is expired, revoked, malformed, or invalid for other reasons.'
const INSUFFICIENT_SCOPE =
  'The request requires higher privileges than provided by the access token.'

/**
 * Checks a `/v1` request's bearer token against the server's tokens (token → scopes).
 * `tokens` undefined: any non-empty token passes with every scope (an explicit loosening).
 */
export function authorize(
  req: IncomingMessage,
  method: string,
  path: string,
  tokens: ReadonlyMap<string, readonly string[]> | undefined,
): AuthOutcome {
  const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')
  if (!match) {
    return {
      ok: false,
      status: 401,
      body: { error: 'Unauthorized', detail: 'Unauthorized' },
      headers: { 'www-authenticate': 'Bearer realm="polar"' },
    }
  }
  if (!tokens) return { ok: true }
  const scopes = tokens.get(match[1])
  if (!scopes) {
    return {
      ok: false,
      status: 401,
      body: { error: 'invalid_token', error_description: INVALID_TOKEN },
      headers: {
        'www-authenticate': `Bearer realm="polar", error="invalid_token", error_description="${INVALID_TOKEN}"`,
        'cache-control': 'no-store',
        pragma: 'no-cache',
      },
    }
  }
  const required = requiredScopes(method, path)
  if (required.length > 0 && !required.some((scope) => scopes.includes(scope))) {
    return {
      ok: false,
      status: 403,
      body: { error: 'insufficient_scope', error_description: INSUFFICIENT_SCOPE },
      headers: {
        'www-authenticate': `Bearer realm="polar", error="insufficient_scope", error_description="${INSUFFICIENT_SCOPE}", scope="${required.join(' ')}"`,
        'cache-control': 'no-store',
        pragma: 'no-cache',
      },
    }
  }
  return { ok: true }
}

/** The request's API version, or null when the server does not serve what it asks for. */
export function apiVersion(req: IncomingMessage): string | null {
  const raw = req.headers['polar-version']
  const value = Array.isArray(raw) ? raw[0] : raw
  if (!value) return CURRENT_VERSION
  if (!/^\d{4}-\d{2}$/.test(value)) return null
  return (SERVED_VERSIONS as readonly string[]).includes(value) ? value : null
}

/**
 * Webhook endpoint URLs as Polar validates them (`server/polar/webhook/schemas.py`:
 * `HttpsUrl` then `validate_hostname`): https with a host, at most 2083 characters, and
 * not localhost, 127.0.0.1, 0.0.0.0, [::1] or any IP address that is not global. The
 * stand-in's local mode (`localWebhooks`) lets loopback and plain http through.
 */
export function webhookUrlProblem(url: string, localMode: boolean): string | null {
  let parsed: URL
  try {
    parsed = new URL(url.trim())
  } catch {
    return 'Input should be a valid URL'
  }
  if (localMode) return null
  if (url.length > 2083) return 'URL should have at most 2083 characters'
  if (parsed.protocol !== 'https:') return 'URL scheme should be https'
  const host = parsed.hostname
  if (['localhost', '127.0.0.1', '0.0.0.0', '[::1]'].includes(host.toLowerCase()))
    return 'Webhook URLs cannot point to localhost or private IP addresses.'
  if (!isGlobalAddress(host))
    return 'Webhook URLs cannot point to localhost or private IP addresses.'
  return null
}

/** False for IP literals that Python's `ipaddress` calls not global; true for names. */
function isGlobalAddress(host: string) {
  const clean = host.replace(/^\[|\]$/g, '')
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(clean)
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])]
    if (a === 10 || a === 127 || a === 0 || a >= 224) return false
    if (a === 169 && b === 254) return false
    if (a === 172 && b >= 16 && b <= 31) return false
    if (a === 192 && b === 168) return false
    if (a === 100 && b >= 64 && b <= 127) return false
    return true
  }
  if (clean.includes(':')) {
    const lower = clean.toLowerCase()
    if (lower === '::' || lower === '::1') return false
    if (/^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || lower.startsWith('::ffff:')) return false
    return true
  }
  return true
}
