import { afterEach, describe, expect, test, vi } from 'vitest'

import { crossSiteRefusal } from './cross-site.server'
import { logger } from './logger.server'

const SITE = 'https://app.example.com'

function request(method: string, headers: Record<string, string>, path = '/sign-in') {
  return new Request(`http://internal:3000${path}`, { method, headers })
}

afterEach(() => vi.restoreAllMocks())

describe('crossSiteRefusal', () => {
  test.each([
    ['a foreign Origin', { Origin: 'https://evil.example' }],
    ['a sibling subdomain Origin', { Origin: 'https://other.example.com' }],
    ['another scheme of our host', { Origin: 'http://app.example.com' }],
    ['another port of our host', { Origin: 'https://app.example.com:8443' }],
    ['Origin: null (sandboxed frame, data: URL)', { Origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'Sec-Fetch-Site': 'same-site' }],
    ['our Origin but Sec-Fetch-Site cross-site', { Origin: SITE, 'Sec-Fetch-Site': 'cross-site' }],
  ])('refuses a POST with %s', (_name, headers) => {
    vi.spyOn(logger, 'warn').mockImplementation(() => {})
    expect(crossSiteRefusal(request('POST', headers), SITE)).toMatch(/Cross-site request refused/)
  })

  test.each([
    ['our Origin', { Origin: SITE }],
    [
      'our Origin and Sec-Fetch-Site same-origin',
      { Origin: SITE, 'Sec-Fetch-Site': 'same-origin' },
    ],
    ['Sec-Fetch-Site: none (typed by the user)', { 'Sec-Fetch-Site': 'none' }],
    ['neither header (curl, server to server: no victim cookies)', {}],
  ])('allows a POST with %s', (_name, headers) => {
    expect(crossSiteRefusal(request('POST', headers), SITE)).toBeNull()
  })

  test.each(['PUT', 'PATCH', 'DELETE'])('checks %s like POST', (method) => {
    vi.spyOn(logger, 'warn').mockImplementation(() => {})
    expect(crossSiteRefusal(request(method, { Origin: 'https://evil.example' }), SITE)).not.toBe(
      null,
    )
  })

  test('GET and HEAD are never refused (they change nothing)', () => {
    const evil = { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }
    expect(crossSiteRefusal(request('GET', evil), SITE)).toBeNull()
    expect(crossSiteRefusal(request('HEAD', evil), SITE)).toBeNull()
  })

  test('webhooks are exempt: providers post from their own servers', () => {
    const evil = { Origin: 'https://stripe.example', 'Sec-Fetch-Site': 'cross-site' }
    expect(crossSiteRefusal(request('POST', evil, '/api/webhooks/stripe'), SITE)).toBeNull()
  })

  test('compares with SITE_URL, not with the Host the request arrived on', () => {
    // Behind a proxy the app sees http://internal:3000; the browser's Origin is the public one.
    expect(crossSiteRefusal(request('POST', { Origin: SITE }), SITE)).toBeNull()
    vi.spyOn(logger, 'warn').mockImplementation(() => {})
    expect(
      crossSiteRefusal(request('POST', { Origin: 'http://internal:3000' }), SITE),
    ).not.toBeNull()
  })

  test('refusals are logged with the method and path', () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {})
    crossSiteRefusal(request('POST', { Origin: 'https://evil.example' }), SITE)
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ method: 'POST', path: '/sign-in' }),
      'cross-site request refused',
    )
  })
})
