import { describe, expect, it } from 'vitest'

import { nextFromLink, safeNextPath } from './safe-next-path'

describe('safeNextPath', () => {
  it.each([
    ['/dashboard', '/dashboard'],
    ['/dashboard/settings/billing?tab=invoices', '/dashboard/settings/billing?tab=invoices'],
    ['/pricing#plans', '/pricing#plans'],
    ['/a/./b/../c', '/a/c'],
    ['/search?q=a%20b', '/search?q=a%20b'],
  ])('lets the same-site path %s through', (input, expected) => {
    expect(safeNextPath(input)).toBe(expected)
  })

  it.each([
    ['https://evil.example'],
    ['http://evil.example/dashboard'],
    ['//evil.example'],
    ['///evil.example'],
    ['/\\evil.example'],
    ['\\\\evil.example'],
    ['/\t/evil.example'],
    ['/%2F/evil.example'],
    ['/%2f%2fevil.example'],
    ['/%5C/evil.example'],
    ['/%252F/evil.example'],
    ['javascript:alert(1)'],
    ['data:text/html,hi'],
    ['dashboard'],
    [' /dashboard'],
    ['/dashboard\n'],
    ['/\u0000x'],
    ['/ｅvil'],
    ['/../..//evil.example'],
    ['/./\\/evil.example'],
    ['/.//evil.example'],
    ['/' + 'a'.repeat(600)],
    [''],
  ])('falls back for %j', (input) => {
    expect(safeNextPath(input)).toBe('/dashboard')
  })

  it('falls back for non-strings and uses the given fallback', () => {
    expect(safeNextPath(null)).toBe('/dashboard')
    expect(safeNextPath(undefined, '/')).toBe('/')
    expect(safeNextPath(['/x'])).toBe('/dashboard')
  })

  it('never returns anything that resolves off-site', () => {
    const attempts = ['//x', '/\\x', '/%2e%2e//x', '/.%2e//x', '/x/../..//y']
    for (const attempt of attempts) {
      const result = safeNextPath(attempt)
      expect(new URL(result, 'https://site.example').origin).toBe('https://site.example')
    }
  })
})

describe('nextFromLink', () => {
  const site = 'https://app.example'
  it.each([
    ['/billing', '/billing'],
    ['https://app.example/auth/callback?next=%2Fdashboard%2Fsettings', '/dashboard/settings'],
    ['https://app.example/auth/callback?next=%2Freset-password', '/reset-password'],
    ['https://app.example/auth/callback', '/dashboard'],
    ['https://app.example/dashboard/settings?tab=1', '/dashboard/settings?tab=1'],
    // the auth server's fallback when the redirect was not on the allow-list
    ['https://app.example', '/dashboard'],
    ['https://app.example/', '/dashboard'],
  ])('follows %s to %s', (value, expected) => {
    expect(nextFromLink(value, site)).toBe(expected)
  })

  it.each([
    ['https://evil.example/auth/callback?next=%2Fbilling'],
    ['http://app.example/billing'], // another scheme is another origin
    ['https://app.example:8443/billing'],
    ['https://user@app.example/billing'],
    ['https://app.example/auth/callback?next=https%3A%2F%2Fevil.example'],
    ['https://app.example/auth/callback?next=%2F%2Fevil.example'],
    ['javascript:alert(1)'],
    ['//evil.example'],
    [null],
    ['https://app.example/' + 'a'.repeat(3000)],
  ])('never leaves the site for %j', (value) => {
    expect(nextFromLink(value, site)).toBe('/dashboard')
  })
})
