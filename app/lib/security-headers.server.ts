import { randomBytes } from 'node:crypto'
import { getEnv, type Env } from '~/env.server'

type HeaderEnv = Pick<
  Env,
  'NODE_ENV' | 'SITE_URL' | 'SUPABASE_URL' | 'STRIPE_API_URL' | 'POLAR_API_URL'
>

/** A fresh nonce for one HTML response (128 random bits, base64). */
export function createNonce(): string {
  return randomBytes(16).toString('base64')
}

/** Hosted pages a form post may end on after our server's redirect (Chromium checks them). */
const HOSTED_FORM_TARGETS = [
  // Stripe Checkout and the Stripe billing portal (POST /api/checkout_sessions, "Manage billing").
  'https://checkout.stripe.com',
  'https://billing.stripe.com',
  // Polar's hosted checkout and customer portal (sandbox.polar.sh, polar.sh, buy.polar.sh).
  'https://polar.sh',
  'https://*.polar.sh',
  // "Continue with GitHub" posts to our action, which redirects to Supabase Auth, then GitHub.
  'https://github.com',
] as const

function originOf(value: string | undefined): string[] {
  if (!value) return []
  try {
    return [new URL(value).origin]
  } catch {
    return []
  }
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1']

/**
 * The origins of a provider API and of its hosted pages. The local emulators (development
 * and tests only: production refuses loopback URLs) answer the API on 127.0.0.1 and link
 * their hosted pages on localhost, so a loopback origin stands for both names.
 */
function providerOrigins(value: string | undefined): string[] {
  return originOf(value).flatMap((origin) => {
    const url = new URL(origin)
    if (!LOOPBACK_HOSTS.includes(url.hostname)) return [origin]
    return LOOPBACK_HOSTS.map((host) => `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`)
  })
}

/**
 * The Content-Security-Policy of an HTML page. Scripts run only from our origin or inline
 * with this response's nonce; nothing may frame the page; forms post to us (and, through
 * our redirects, to the providers' hosted pages); images may come from Supabase Storage
 * (avatars). Development adds what Vite needs: its HMR websocket and injected styles.
 */
export function contentSecurityPolicy(env: HeaderEnv, nonce: string): string {
  const development = env.NODE_ENV === 'development'
  const unique = (values: string[]) => [...new Set(values)]
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", `'nonce-${nonce}'`],
    // Vite injects <style> elements in development; the production CSS is one file.
    'style-src': development ? ["'self'", "'unsafe-inline'"] : ["'self'"],
    'img-src': unique(["'self'", 'data:', 'blob:', ...originOf(env.SUPABASE_URL)]),
    'font-src': ["'self'"],
    'connect-src': development ? ["'self'", 'ws://localhost:*', 'ws://127.0.0.1:*'] : ["'self'"],
    'frame-src': ["'none'"],
    'frame-ancestors': ["'none'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': unique([
      "'self'",
      ...providerOrigins(env.SUPABASE_URL),
      ...providerOrigins(env.STRIPE_API_URL),
      ...providerOrigins(env.POLAR_API_URL),
      ...HOSTED_FORM_TARGETS,
    ]),
  }
  const policy = Object.entries(directives).map(([name, values]) => `${name} ${values.join(' ')}`)
  if (env.NODE_ENV === 'production') policy.push('upgrade-insecure-requests')
  return policy.join('; ')
}

/** For answers that are not HTML pages (JSON, redirects, single-fetch data): nothing runs. */
export const RESOURCE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"

/** Headers every response carries, whatever its kind. */
function setCommonHeaders(headers: Headers, env: Pick<Env, 'NODE_ENV'>) {
  headers.set('X-Content-Type-Options', 'nosniff')
  headers.set('Referrer-Policy', 'strict-origin-when-cross-origin')
  headers.set('X-Frame-Options', 'DENY')
  headers.set('Cross-Origin-Opener-Policy', 'same-origin')
  headers.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()')
  if (env.NODE_ENV === 'production') {
    headers.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains')
  }
}

/** True when the request carries a Supabase session cookie (`sb-<ref>-auth-token`, chunked or not). */
export function hasSessionCookie(request: Request): boolean {
  const cookie = request.headers.get('Cookie') ?? ''
  return /(?:^|;\s*)sb-[^=;]*-auth-token(?:\.\d+)?=/.test(cookie)
}

/**
 * Headers of an HTML page: the CSP with this response's nonce and the common headers.
 * A page for a signed-in visitor holds their data (at least the header's email), so it is
 * never stored by a cache unless its route chose a policy itself.
 */
export function applyDocumentHeaders(
  headers: Headers,
  options: { env: HeaderEnv; nonce: string; signedIn: boolean },
) {
  headers.set('Content-Security-Policy', contentSecurityPolicy(options.env, options.nonce))
  setCommonHeaders(headers, options.env)
  if (options.signedIn) headers.set('Cache-Control', 'private, no-store')
}

/**
 * Headers of everything else (API answers, redirects, single-fetch data): the common
 * headers, a CSP under which nothing runs, and `no-store` unless the route set a policy.
 */
export function applyResourceHeaders(headers: Headers, env: Pick<Env, 'NODE_ENV'>) {
  if (!headers.has('Content-Security-Policy')) headers.set('Content-Security-Policy', RESOURCE_CSP)
  setCommonHeaders(headers, env)
  if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store')
}

function withResourceHeaders(response: Response): Response {
  try {
    applyResourceHeaders(response.headers, getEnv())
    return response
  } catch {
    // Immutable headers (a Response.redirect or a fetched response): copy, then set.
    const copy = new Response(response.body, response)
    applyResourceHeaders(copy.headers, getEnv())
    return copy
  }
}

/**
 * Wraps a resource route's loader or action (API answers, redirects, webhooks) so every
 * response it returns or throws carries the security headers: Remix renders no document
 * for these routes, so `entry.server.tsx` never sees them.
 */
export function secureResource<Args extends unknown[]>(
  handler: (...args: Args) => Response | Promise<Response>,
): (...args: Args) => Promise<Response> {
  const secured = async (...args: Args) => {
    let response: Response
    try {
      response = await handler(...args)
    } catch (thrown) {
      if (thrown instanceof Response) throw withResourceHeaders(thrown)
      throw thrown
    }
    return withResourceHeaders(response)
  }
  securedHandlers.add(secured)
  return secured
}

const securedHandlers = new WeakSet<object>()

/** True for a loader or action made by `secureResource` (checked for every resource route). */
export function isSecuredResource(handler: unknown): boolean {
  return typeof handler === 'function' && securedHandlers.has(handler)
}
