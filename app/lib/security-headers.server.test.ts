import { describe, expect, test } from 'vitest'
import { parseEnv } from '~/env.server'
import { PRODUCTION_ENV } from '~/env.test-support'
import {
  RESOURCE_CSP,
  applyDocumentHeaders,
  applyResourceHeaders,
  contentSecurityPolicy,
  createNonce,
  hasSessionCookie,
  secureResource,
} from './security-headers.server'

const production = parseEnv(PRODUCTION_ENV)
const development = parseEnv({})

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
    const csp = directives(contentSecurityPolicy(production, 'abc123'))
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
        'https://checkout.stripe.com',
        'https://billing.stripe.com',
        'https://*.polar.sh',
        'https://abcd.supabase.co',
      ]),
    )
    expect(csp['upgrade-insecure-requests']).toEqual([])
    expect(JSON.stringify(csp)).not.toContain('unsafe-inline')
    expect(JSON.stringify(csp)).not.toContain('unsafe-eval')
  })

  test('the configured provider API origins may receive redirected form posts', () => {
    const csp = directives(contentSecurityPolicy(development, 'n'))
    expect(csp['form-action']).toEqual(
      expect.arrayContaining(['http://localhost:12111', 'http://localhost:12112']),
    )
    // The emulators serve their API on 127.0.0.1 and their hosted pages on localhost.
    const emulated = { ...development, STRIPE_API_URL: 'http://127.0.0.1:12921' }
    expect(directives(contentSecurityPolicy(emulated, 'n'))['form-action']).toEqual(
      expect.arrayContaining(['http://127.0.0.1:12921', 'http://localhost:12921']),
    )
  })

  test('development adds the Vite HMR websocket and injected styles only', () => {
    const csp = directives(contentSecurityPolicy(development, 'n'))
    expect(csp['connect-src']).toContain('ws://localhost:*')
    expect(csp['style-src']).toContain("'unsafe-inline'")
    expect(csp['upgrade-insecure-requests']).toBeUndefined()
    const test = directives(contentSecurityPolicy({ ...development, NODE_ENV: 'test' }, 'n'))
    expect(test['connect-src']).toEqual(["'self'"])
  })

  test('nonces are fresh and unguessable', () => {
    const nonces = new Set(Array.from({ length: 100 }, () => createNonce()))
    expect(nonces.size).toBe(100)
    expect(createNonce()).toMatch(/^[A-Za-z0-9+/]{22}==$/)
  })
})

describe('applyDocumentHeaders', () => {
  test('sets the CSP and the common headers; HSTS only in production', () => {
    const headers = new Headers()
    applyDocumentHeaders(headers, { env: production, nonce: 'n1', signedIn: false })
    expect(headers.get('Content-Security-Policy')).toContain("'nonce-n1'")
    expect(headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin')
    expect(headers.get('X-Frame-Options')).toBe('DENY')
    expect(headers.get('Strict-Transport-Security')).toMatch(/^max-age=31536000/)
    expect(headers.get('Cache-Control')).toBeNull()
    const local = new Headers()
    applyDocumentHeaders(local, { env: development, nonce: 'n1', signedIn: false })
    expect(local.get('Strict-Transport-Security')).toBeNull()
  })

  test('a signed-in visitor’s page is never stored', () => {
    const headers = new Headers({ 'Cache-Control': 'public, max-age=60' })
    applyDocumentHeaders(headers, { env: production, nonce: 'n', signedIn: true })
    expect(headers.get('Cache-Control')).toBe('private, no-store')
  })
})

describe('applyResourceHeaders and secureResource', () => {
  test('resource answers get a CSP under which nothing runs and no-store by default', () => {
    const headers = new Headers()
    applyResourceHeaders(headers, production)
    expect(headers.get('Content-Security-Policy')).toBe(RESOURCE_CSP)
    expect(headers.get('Cache-Control')).toBe('no-store')
    expect(headers.get('X-Frame-Options')).toBe('DENY')
    const cached = new Headers({ 'Cache-Control': 'private, max-age=5' })
    applyResourceHeaders(cached, production)
    expect(cached.get('Cache-Control')).toBe('private, max-age=5')
  })

  test('wraps returned and thrown responses, even immutable ones', async () => {
    const returned = await secureResource(() => Response.json({ ok: true }))()
    expect(returned.headers.get('X-Content-Type-Options')).toBe('nosniff')
    const redirect = await secureResource(() => Response.redirect('https://example.com/', 302))()
    expect(redirect.status).toBe(302)
    expect(redirect.headers.get('Cache-Control')).toBe('no-store')
    const thrown = await secureResource(() => {
      throw new Response('nope', { status: 404 })
    })().catch((error: unknown) => error)
    expect(thrown).toBeInstanceOf(Response)
    expect((thrown as Response).headers.get('X-Frame-Options')).toBe('DENY')
    await expect(
      secureResource(() => {
        throw new Error('boom')
      })(),
    ).rejects.toThrow('boom')
  })
})

describe('hasSessionCookie', () => {
  const withCookie = (cookie: string) => new Request('http://x/', { headers: { Cookie: cookie } })
  test.each([
    ['sb-127-auth-token=abc', true],
    ['a=1; sb-abcd-auth-token.0=abc; sb-abcd-auth-token.1=def', true],
    ['theme=dark', false],
    ['', false],
  ])('%j → %s', (cookie, expected) => {
    expect(hasSessionCookie(withCookie(cookie))).toBe(expected)
  })
})
