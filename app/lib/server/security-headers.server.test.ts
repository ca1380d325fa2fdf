import { describe, expect, test } from 'vitest'

import { parseEnv } from '~/env.server'
import { PRODUCTION_ENV } from '~/env.test-support'

import {
  applyDocumentHeaders,
  applyResponseDefaults,
  contentSecurityPolicy,
  createNonce,
  hasSessionCookie,
  providerOrigins,
} from './security-headers.server'

const production = parseEnv(PRODUCTION_ENV)
const development = parseEnv({})
/** What the billing registry hands over: hosted pages a redirected form post may end on. */
const TARGETS = ['https://checkout.example', 'https://*.pay.example']
const policyOf = (env: typeof production, nonce: string) =>
  contentSecurityPolicy(env, nonce, TARGETS)

function directives(policy: string) {
  return Object.fromEntries(
    policy.split('; ').map((part) => {
      const [name, ...values] = part.split(' ')
      return [name, values]
    }),
  )
}

describe('contentSecurityPolicy', () => {
  test('production: nonce scripts, no framing, no plugins, forms to us and the providers', () => {
    const csp = directives(policyOf(production, 'abc123'))
    expect(csp['script-src']).toEqual(["'self'", "'nonce-abc123'"])
    expect(csp['style-src']).toEqual(["'self'"])
    expect(csp['frame-ancestors']).toEqual(["'none'"])
    expect(csp['object-src']).toEqual(["'none'"])
    expect(csp['base-uri']).toEqual(["'self'"])
    expect(csp['connect-src']).toEqual(["'self'"])
    expect(csp['img-src']).toContain('https://abcd.supabase.co')
    expect(csp['form-action']).toEqual(
      expect.arrayContaining([
        "'self'",
        'https://checkout.example',
        'https://*.pay.example',
        'https://abcd.supabase.co',
        'https://github.com',
      ]),
    )
    expect(csp['upgrade-insecure-requests']).toEqual([])
    expect(JSON.stringify(csp)).not.toContain('unsafe-inline')
    expect(JSON.stringify(csp)).not.toContain('unsafe-eval')
  })

  test('each page gets its own nonce in a policy otherwise the same for its configuration', () => {
    const first = policyOf(production, 'first+/=')
    const second = policyOf(production, 'second')
    expect(directives(first)['script-src']).toEqual(["'self'", "'nonce-first+/='"])
    expect(directives(second)['script-src']).toEqual(["'self'", "'nonce-second'"])
    expect(second).not.toContain('first')
    expect(second.replace('second', 'first+/=')).toBe(first)
    // Another configuration gets its own policy.
    const other = { ...production, SUPABASE_URL: 'https://other.supabase.co' }
    expect(directives(policyOf(other, 'n'))['img-src']).toContain('https://other.supabase.co')
    expect(directives(policyOf(production, 'n'))['img-src']).not.toContain(
      'https://other.supabase.co',
    )
  })

  test('a loopback provider origin stands for both of its names', () => {
    // The emulators serve their API on 127.0.0.1 and their hosted pages on localhost.
    expect(providerOrigins('http://127.0.0.1:12921/v1')).toEqual([
      'http://localhost:12921',
      'http://127.0.0.1:12921',
    ])
    expect(providerOrigins('https://api.example.com/v1')).toEqual(['https://api.example.com'])
  })

  test('development adds the Vite HMR websocket and injected styles only', () => {
    const csp = directives(policyOf(development, 'n'))
    expect(csp['connect-src']).toContain('ws://localhost:*')
    expect(csp['style-src']).toContain("'unsafe-inline'")
    expect(csp['upgrade-insecure-requests']).toBeUndefined()
    const test = directives(policyOf({ ...development, NODE_ENV: 'test' }, 'n'))
    expect(test['connect-src']).toEqual(["'self'"])
  })

  test('nonces are fresh and unguessable', () => {
    const nonces = new Set(Array.from({ length: 100 }, () => createNonce()))
    expect(nonces.size).toBe(100)
    expect(createNonce()).toMatch(/^[A-Za-z0-9+/]{22}==$/)
  })
})

describe('applyDocumentHeaders', () => {
  test.each([
    [false, {}, null],
    [true, { 'Cache-Control': 'public, max-age=60' }, 'private, no-store'],
  ])(
    "sets the page's CSP with its nonce; signed in %s, the page's caching is %s",
    (signedIn, init, cacheControl) => {
      const headers = new Headers(init)
      applyDocumentHeaders(headers, {
        env: production,
        nonce: 'n1',
        signedIn,
        formTargets: TARGETS,
      })
      expect(headers.get('Content-Security-Policy')).toContain("'nonce-n1'")
      expect(headers.get('Cache-Control')).toBe(cacheControl)
    },
  )
})

describe('applyResponseDefaults', () => {
  const defaults = (
    headers: Headers,
    options: Partial<Parameters<typeof applyResponseDefaults>[1]> = {},
  ) => {
    const res = {
      hasHeader: (name: string) => headers.has(name),
      getHeader: (name: string) => headers.get(name) ?? undefined,
      setHeader: (name: string, value: string) => headers.set(name, value),
    }
    applyResponseDefaults(res, { env: production, status: 200, signedIn: false, ...options })
    return headers
  }

  // The other common headers on every answer: request-policy.server.test.ts (expectSecured).
  test('the common headers on every response; HSTS only in production', () => {
    const headers = defaults(new Headers())
    expect(headers.get('Permissions-Policy')).toBe(
      'camera=(), microphone=(), geolocation=(), payment=()',
    )
    expect(headers.get('Strict-Transport-Security')).toMatch(/^max-age=31536000/)
    const local = defaults(new Headers(), { env: development })
    expect(local.get('Strict-Transport-Security')).toBeNull()
  })

  test('never replaces what the response chose', () => {
    const page = defaults(
      new Headers({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': "script-src 'nonce-n'",
        'Cache-Control': 'private, max-age=5',
        'Retry-After': '60',
      }),
      { status: 503, signedIn: true },
    )
    expect(page.get('Content-Security-Policy')).toBe("script-src 'nonce-n'")
    expect(page.get('Cache-Control')).toBe('private, max-age=5')
    expect(page.get('Retry-After')).toBe('60')
  })

  test('an HTML page is stored only when nobody is signed in', () => {
    const html = { 'Content-Type': 'text/html; charset=utf-8' }
    expect(defaults(new Headers(html)).get('Cache-Control')).toBeNull()
    expect(defaults(new Headers(html), { signedIn: true }).get('Cache-Control')).toBe(
      'private, no-store',
    )
  })

  test('a 503 tells clients when to come back', () => {
    expect(defaults(new Headers(), { status: 503 }).get('Retry-After')).toBe('5')
    expect(defaults(new Headers(), { status: 500 }).get('Retry-After')).toBeNull()
  })
})

describe('hasSessionCookie', () => {
  test.each([
    ['sb-127-auth-token=abc', true],
    ['a=1; sb-abcd-auth-token.0=abc; sb-abcd-auth-token.1=def', true],
    ['a=1; __Host-sb-abcd-auth-token.0=abc', true],
    ['theme=dark', false],
    ['', false],
  ])('%j → %s', (cookie, expected) => {
    expect(hasSessionCookie(cookie)).toBe(expected)
  })
})
