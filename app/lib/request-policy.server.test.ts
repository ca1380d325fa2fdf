import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { resetEnvForTests } from '~/env.server'
import { requestPolicy } from './request-policy.server'

// The policy compares Origin with SITE_URL (local defaults in tests: http://localhost:5173).
const SITE = 'http://localhost:5173'
const EVIL = { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }

function request(method: string, path: string, headers: Record<string, string> = {}) {
  return new Request(`${SITE}${path}`, { method, headers })
}

beforeEach(() => {
  resetEnvForTests()
  vi.spyOn(console, 'warn').mockImplementation(() => {})
})
afterEach(() => vi.restoreAllMocks())

describe('requestPolicy', () => {
  test.each(['/contact', '/dashboard/settings/account', '/contact.data', '/auth/confirm'])(
    'a cross-site post to the page %s gets a 403 page, not a Remix 500',
    async (path) => {
      const answer = requestPolicy(request('POST', path, EVIL))
      expect(answer?.status).toBe(403)
      expect(answer?.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
      expect(answer?.headers.get('Cache-Control')).toBe('no-store')
      expect(answer?.headers.get('Content-Security-Policy')).toContain("default-src 'none'")
      const page = await answer!.text()
      expect(page).toContain('<h1>Request refused</h1>')
      expect(page).toContain('sent from another website')
    },
  )

  test('the contact API gets its own shape', async () => {
    const answer = requestPolicy(request('POST', '/api/contact', EVIL))
    expect(answer?.status).toBe(403)
    expect(await answer!.json()).toEqual({
      success: false,
      message: 'Cross-site requests are not allowed',
    })
  })

  test.each(['/api/checkout_sessions', '/api/customer_portal', '/sign-out'])(
    '%s gets {error}',
    async (path) => {
      const answer = requestPolicy(request('POST', path, EVIL))
      expect(answer?.status).toBe(403)
      expect(await answer!.json()).toEqual({ error: 'Cross-site requests are not allowed' })
    },
  )

  test.each([
    ['a GET from anywhere', request('GET', '/contact', EVIL)],
    ['a same-origin post', request('POST', '/contact', { Origin: SITE })],
    ['a post without Origin or Sec-Fetch-Site (curl)', request('POST', '/api/contact')],
    ['a provider webhook', request('POST', '/api/webhooks/stripe', EVIL)],
  ])('lets through %s', (_name, req) => {
    expect(requestPolicy(req)).toBeNull()
  })
})
