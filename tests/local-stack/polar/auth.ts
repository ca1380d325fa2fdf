import type { IncomingMessage } from 'node:http'

/**
 * Access tokens, scopes and API versions as Polar's API checks them (polarsource/polar
 * `auth/middlewares.py`, `auth/dependencies.py`, each module's `auth.py`, `kit/versioning.py`).
 */

const SERVED_VERSIONS = ['2026-04', '2026-10']

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

/** Scopes that let a request through each `/v1` route (any one of them). */
const ROUTE_SCOPES: [method: string, prefix: string, scopes: string[]][] = [
  ['GET', '/v1/checkouts/', ['checkouts:read', 'checkouts:write']],
  ['*', '/v1/checkouts/', ['checkouts:write']],
  ['*', '/v1/customer-sessions/', ['customer_sessions:write']],
  ['GET', '/v1/customers/', ['customers:read', 'customers:write']],
  ['*', '/v1/customers/', ['customers:write']],
  ['GET', '/v1/subscriptions/', ['subscriptions:read', 'subscriptions:write']],
  ['*', '/v1/subscriptions/', ['subscriptions:write']],
  // Generating an invoice is `OrdersRead` too (server/polar/order/endpoints.py).
  ['*', '/v1/orders/', ['orders:read']],
  ['GET', '/v1/webhooks/', ['webhooks:read', 'webhooks:write']],
]

const INVALID_TOKEN =
  'The access token provided is expired, revoked, malformed, or invalid for other reasons.'
const INSUFFICIENT_SCOPE =
  'The request requires higher privileges than provided by the access token.'

/** Null when a `/v1` request's token and scopes pass, else Polar's 401 or 403. */
export function authorize(
  req: IncomingMessage,
  method: string,
  path: string,
  token: string,
  scopes: readonly string[],
) {
  const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')
  if (!match) {
    return {
      status: 401,
      body: { error: 'Unauthorized', detail: 'Unauthorized' },
      headers: { 'www-authenticate': 'Bearer realm="polar"' },
    }
  }
  if (match[1] !== token) {
    return {
      status: 401,
      body: { error: 'invalid_token', error_description: INVALID_TOKEN },
      headers: {
        'www-authenticate': `Bearer realm="polar", error="invalid_token", error_description="${INVALID_TOKEN}"`,
      },
    }
  }
  const required =
    ROUTE_SCOPES.find(
      ([m, prefix]) => (m === '*' || m === method) && path.startsWith(prefix),
    )?.[2] ?? []
  if (required.length === 0 || required.some((scope) => scopes.includes(scope))) return null
  return {
    status: 403,
    body: {
      error: 'insufficient_scope',
      error_description: INSUFFICIENT_SCOPE,
    },
    headers: {
      'www-authenticate': `Bearer realm="polar", error="insufficient_scope", error_description="${INSUFFICIENT_SCOPE}", scope="${required.join(' ')}"`,
    },
  }
}

/** The request's `Polar-Version` (absent: the current one), or null when it is not served. */
export function apiVersion(req: IncomingMessage): string | null {
  const value = req.headers['polar-version']
  if (!value) return SERVED_VERSIONS[0]
  return typeof value === 'string' && SERVED_VERSIONS.includes(value) ? value : null
}
