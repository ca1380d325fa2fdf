import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'

import { crossSiteRefusal } from './cross-site.server'
import { logger } from './logger.server'

const SITE = 'https://app.example.com'

function request(method: string, headers: Record<string, string>, path = '/sign-in') {
  return new Request(`http://internal:3000${path}`, { method, headers })
}

const EVIL = { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }

beforeEach(() => vi.spyOn(logger, 'warn').mockImplementation(() => {}))
afterEach(() => vi.restoreAllMocks())

describe('crossSiteRefusal', () => {
  test.each<[string, string, Record<string, string>, boolean, string?]>([
    ['a foreign Origin', 'POST', { Origin: 'https://evil.example' }, true],
    ['a sibling subdomain Origin', 'POST', { Origin: 'https://other.example.com' }, true],
    ['another scheme of our host', 'POST', { Origin: 'http://app.example.com' }, true],
    ['another port of our host', 'POST', { Origin: 'https://app.example.com:8443' }, true],
    ['Origin: null (sandboxed frame, data: URL)', 'POST', { Origin: 'null' }, true],
    ['Sec-Fetch-Site: cross-site', 'POST', { 'Sec-Fetch-Site': 'cross-site' }, true],
    ['Sec-Fetch-Site: same-site', 'POST', { 'Sec-Fetch-Site': 'same-site' }, true],
    ['our Origin but Sec-Fetch-Site cross-site', 'POST', { ...EVIL, Origin: SITE }, true],
    ...['PUT', 'PATCH', 'DELETE'].map(
      (method): [string, string, Record<string, string>, boolean] => [
        'a foreign Origin',
        method,
        { Origin: EVIL.Origin },
        true,
      ],
    ),
    // Behind a proxy the app sees http://internal:3000; the browser's Origin is the public one.
    ['the Host the request came to as Origin', 'POST', { Origin: 'http://internal:3000' }, true],
    ['our Origin (SITE_URL)', 'POST', { Origin: SITE }, false],
    ['our Origin, same-origin', 'POST', { Origin: SITE, 'Sec-Fetch-Site': 'same-origin' }, false],
    ['Sec-Fetch-Site: none (typed by the user)', 'POST', { 'Sec-Fetch-Site': 'none' }, false],
    ['neither header (curl, server to server: no victim cookies)', 'POST', {}, false],
    // They change nothing.
    ['a foreign Origin', 'GET', EVIL, false],
    ['a foreign Origin', 'HEAD', EVIL, false],
    // Providers post from their own servers.
    ['a foreign Origin to a webhook', 'POST', EVIL, false, '/api/webhooks/stripe'],
  ])('%s, %s: refused %s', (_, method, headers, refused, path) => {
    const refusal = crossSiteRefusal(request(method, headers, path), SITE)
    if (refused) expect(refusal).toMatch(/Cross-site request refused/)
    else expect(refusal).toBeNull()
  })

  test('refusals are logged with the method and path', () => {
    crossSiteRefusal(request('POST', { Origin: 'https://evil.example' }), SITE)
    expect(logger.warn).toHaveBeenCalledWith(
      expect.objectContaining({ method: 'POST', path: '/sign-in' }),
      'cross-site request refused',
    )
  })
})
