import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

import onHeaders from 'on-headers'

import { type Env, getEnv } from '~/env.server'
import { RETRY_AFTER_SECONDS } from '~/lib/database/database-availability.server'

type HeaderEnv = Pick<Env, 'NODE_ENV' | 'SITE_URL' | 'SUPABASE_URL'>

export function createNonce(): string {
  return randomBytes(16).toString('base64')
}

/** "Continue with GitHub" posts to our action, which redirects to Supabase Auth, then GitHub. */
const SIGN_IN_FORM_TARGET = 'https://github.com'

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1']

/** A loopback origin on both names: the stand-ins answer on 127.0.0.1, link pages on localhost. */
export function providerOrigins(value: string | undefined): string[] {
  if (!value) return []
  const { origin, protocol, hostname, port } = new URL(value)
  if (!LOOPBACK_HOSTS.includes(hostname)) return [origin]
  return LOOPBACK_HOSTS.map((host) => `${protocol}//${host}${port ? `:${port}` : ''}`)
}

/** A page's CSP; `form-action` lists where our redirects take a post too (Chromium checks them). */
export function contentSecurityPolicy(
  env: HeaderEnv,
  nonce: string,
  formTargets: string[],
): string {
  const development = env.NODE_ENV === 'development'
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", `'nonce-${nonce}'`],
    // Vite injects <style> elements in development; the production CSS is one file.
    'style-src': development ? ["'self'", "'unsafe-inline'"] : ["'self'"],
    'img-src': ["'self'", 'data:', 'blob:', new URL(env.SUPABASE_URL).origin],
    'font-src': ["'self'"],
    'connect-src': development ? ["'self'", 'ws://localhost:*', 'ws://127.0.0.1:*'] : ["'self'"],
    'frame-src': ["'none'"],
    'frame-ancestors': ["'none'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': [
      ...new Set([
        "'self'",
        ...providerOrigins(env.SUPABASE_URL),
        ...formTargets,
        SIGN_IN_FORM_TARGET,
      ]),
    ],
  }
  const policy = Object.entries(directives).map(([name, values]) => `${name} ${values.join(' ')}`)
  if (env.NODE_ENV === 'production') policy.push('upgrade-insecure-requests')
  return policy.join('; ')
}

/** For answers that are not HTML pages (JSON, redirects, single-fetch data): nothing runs. */
export const RESOURCE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'"

/** What the header rules need of a Node response whose head is not sent yet. */
interface HeaderTarget {
  hasHeader(name: string): boolean
  getHeader(name: string): unknown
  setHeader(name: string, value: string): unknown
}

/** True when a `Cookie` header holds a Supabase session cookie (`[__Host-]sb-<ref>-auth-token`, chunked or not). */
export function hasSessionCookie(cookie: string | null | undefined): boolean {
  return /(?:^|;\s*)(?:__Host-)?sb-[^=;]*-auth-token(?:\.\d+)?=/.test(cookie ?? '')
}

/** What only the renderer knows: the CSP with this nonce, and a signed-in page no cache keeps. */
export function applyDocumentHeaders(
  headers: Headers,
  options: { env: HeaderEnv; nonce: string; signedIn: boolean; formTargets: string[] },
) {
  const policy = contentSecurityPolicy(options.env, options.nonce, options.formTargets)
  headers.set('Content-Security-Policy', policy)
  if (options.signedIn) headers.set('Cache-Control', 'private, no-store')
}

/** Every answer's headers, never replacing the response's: a page is cacheable unless signed in. */
export function applyResponseDefaults(
  res: HeaderTarget,
  options: { env: Pick<Env, 'NODE_ENV'>; status: number; signedIn: boolean },
) {
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin')
  res.setHeader('X-Frame-Options', 'DENY')
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin')
  res.setHeader('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()')
  if (options.env.NODE_ENV === 'production') {
    res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains')
  }
  if (!res.hasHeader('Content-Security-Policy'))
    res.setHeader('Content-Security-Policy', RESOURCE_CSP)
  if (!res.hasHeader('Cache-Control')) {
    const page = /^text\/html\b/i.test(String(res.getHeader('Content-Type') ?? ''))
    if (!page) res.setHeader('Cache-Control', 'no-store')
    else if (options.signedIn) res.setHeader('Cache-Control', 'private, no-store')
  }
  if (options.status === 503 && !res.hasHeader('Retry-After'))
    res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS))
}

/** Every answer (a static file's too) gets those as its head is written, whoever set the rest. */
export function responseHeaders(req: IncomingMessage, res: ServerResponse, next: () => void) {
  const signedIn = hasSessionCookie(req.headers.cookie)
  onHeaders(res, () =>
    applyResponseDefaults(res, { env: getEnv(), status: res.statusCode, signedIn }),
  )
  next()
}
