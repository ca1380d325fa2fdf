import { describe, expect, it } from 'vitest'

import { compileGlob, GlobSyntaxError } from './auth/glob'
import { checkAllowList, isRedirectAllowed, resolveRedirect } from './auth/redirects'

// The redirect rule, case by case from the auth server's own tests (request_test.go) and
// gobwas/glob's examples; the project's own entries are tests/config/supabase-config.test.ts's.

describe('the same-origin rule (TestIsRedirectURLValidSameOrigin)', () => {
  it.each([
    ['https://example.com', 'https://example.com/path', true],
    ['https://example.com', 'http://example.com/path', false], // scheme downgrade
    ['http://example.com', 'https://example.com/path', false], // scheme upgrade
    ['https://example.com', 'https://example.com:8443/path', false],
    ['https://example.com:9000', 'https://example.com:9000/path', true],
    ['https://example.com:9000', 'https://example.com/path', false],
    ['https://example.com:9000', 'https://example.com:9001/path', false],
    ['http://localhost:3000', 'http://localhost:8080/callback', true], // RFC 8252 7.3
    ['http://127.0.0.1:3000', 'http://127.0.0.1:8080/callback', true],
    ['http://localhost:3000', 'http://localhost/callback', true],
    ['https://localhost:3000', 'http://localhost:8080/callback', false],
  ])('site %s, redirect %s → %s', (siteUrl, redirect, allowed) => {
    expect(isRedirectAllowed({ siteUrl, redirectAllowList: [] }, redirect)).toBe(allowed)
  })
})

describe('the allow-list (TestGetReferrer)', () => {
  const config = {
    siteUrl: 'https://example.com',
    redirectAllowList: [
      'http://localhost:8000/*',
      'http://*.localhost:8000/*',
      'http://*:12345/*',
      'http://**:12345/*',
    ],
  }
  it.each([
    ['http://localhost:8000/path', 'http://localhost:8000/path'],
    ['http://localhost:3000', config.siteUrl],
    ['http://localhost:8000', config.siteUrl], // no `/` after the port
    ['http://localhost:8000/path/to/page', config.siteUrl], // `*` stops at `/`
    ['http://localhost:8000/path?param=1', 'http://localhost:8000/path?param=1'],
    ['http://123?.localhost:8000/path', config.siteUrl], // a decimal "IP address"
    ['http://123.123.123.123?localhost:8000/path', config.siteUrl],
    ['http://[65e7:9410:d8b6:e227:58cd:e55b:8fc0:206d]?localhost:8000/path', config.siteUrl],
    ['http://65e7:9410:d8b6:e227:58cd:e55b:8fc0:206d?localhost:8000/path', config.siteUrl],
    ['http://127.0.0.1:12345/path', 'http://127.0.0.1:12345/path'],
    ['http://[0:0:0:0:0:0:0:1]:12345/path', 'http://[0:0:0:0:0:0:0:1]:12345/path'],
    ['https://example.com/dashboard', 'https://example.com/dashboard'],
    ['http://example.com/dashboard', config.siteUrl],
    ['https://example.com:8443/dashboard', config.siteUrl],
    [null, config.siteUrl], // nothing asked for
    ['', config.siteUrl],
  ])('%s → %s', (requested, expected) => {
    expect(resolveRedirect(config, requested)).toBe(expected)
  })
})

describe("the app's redirects against a hosted project's Site URL", () => {
  const site = 'https://subscribely.example'
  const callback = 'http://localhost:5173/auth/callback?next=%2Fdashboard'
  const exact = 'http://localhost:5173/auth/callback'
  const prefix = 'http://localhost:5173/auth/callback*'
  const origin = 'http://localhost:5173/**'
  it.each([
    [exact, exact, exact],
    [exact, `${exact}#x=1`, `${exact}#x=1`], // matched without the fragment
    // `*` stops at `/` and `.`: `/auth/callback*` matches the query, `/*` does not
    ['http://localhost:5173/*', callback, site],
    [prefix, callback, callback],
    [prefix, 'http://localhost:5173/auth/callback?next=/files/report.pdf', site],
    // `**` matches every path and query of the origin, and only that origin
    [origin, 'http://localhost:5174/auth/callback', site],
    [origin, 'http://localhost:5173.evil.example/x', site],
    [origin, 'https://evil.example/?http://localhost:5173/', site],
    // loopback IP addresses are always accepted, other IPs never by the allow-list
    ['http://**', 'http://127.0.0.1:5173/auth/callback', 'http://127.0.0.1:5173/auth/callback'],
    ['http://**', 'http://10.0.0.8:5173/auth/callback', site],
    ['http://**', 'http://2130706433/auth/callback', site],
  ])('entry %s, redirect %s → %s', (entry, requested, expected) => {
    expect(resolveRedirect({ siteUrl: site, redirectAllowList: [entry] }, requested)).toBe(expected)
  })
})

describe('globs with `.` and `/` as separators (gobwas/glob)', () => {
  it.each([
    ['api.*.com', 'api.github.com', true],
    ['api.*.com', 'api.gi.hub.com', false],
    ['api.**.com', 'api.gi.hub.com', true],
    ['https://*.google.*', 'https://account.google.com', true],
    ['https://*.google.*', 'https://google.com', false],
    ['http://x/a,b}(c)+$', 'http://x/a,b}(c)+$', true],
  ])('%s against %s → %s', (pattern, value, expected) => {
    expect(compileGlob(pattern).match(value)).toBe(expected)
  })

  it.each(['?at', '[abc]at', '{cat,bat}', 'a\\*b'])(
    'refuses the syntax the project does not use, at start: %s',
    (pattern) => {
      expect(() => compileGlob(pattern)).toThrow(GlobSyntaxError)
      expect(() => checkAllowList([pattern])).toThrow(
        /the local stack takes only \* and \*\* in an entry/,
      )
    },
  )
})
