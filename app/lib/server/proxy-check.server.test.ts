import type { IncomingMessage } from 'node:http'

import { describe, expect, it } from 'vitest'

import { createProxyCheck, proxyMismatch } from './proxy-check.server'

describe('proxyMismatch', () => {
  const forwarded = (value: string) => ({ 'x-forwarded-for': value })
  // No proxy trusted: a forwarded-address header is a mismatch. N trusted: fewer than N
  // X-Forwarded-For addresses is a direct connection. The platform's health checks are left out.
  it.each<[Record<string, string>, string, number, string | null]>([
    [{}, '/', 0, null],
    [forwarded('203.0.113.9'), '/pricing', 0, 'forwarded-without-proxy'],
    [{ forwarded: 'for=203.0.113.9' }, '/', 0, 'forwarded-without-proxy'],
    [{ 'x-real-ip': '203.0.113.9' }, '/', 0, 'forwarded-without-proxy'],
    [{}, '/sign-in', 1, 'proxy-without-forwarded'],
    [forwarded(' , '), '/', 1, 'proxy-without-forwarded'],
    [forwarded('203.0.113.9'), '/', 1, null],
    [forwarded('203.0.113.9'), '/', 2, 'proxy-without-forwarded'],
    [forwarded('198.51.100.1, 10.0.0.2'), '/', 2, null],
    [{}, '/healthz', 1, null],
    [{}, '/healthz?live', 1, null],
    [forwarded('203.0.113.9'), '/healthz', 0, null],
  ])('%j to %s behind %i proxies: %s', (headers, path, proxies, verdict) => {
    expect(proxyMismatch(headers, path, proxies)).toBe(verdict)
  })
})

describe('createProxyCheck', () => {
  const request = (headers: IncomingMessage['headers'], url = '/') =>
    ({ headers, url, socket: { remoteAddress: '198.51.100.7' } }) as unknown as IncomingMessage

  it('warns once per kind, naming the setting and the address, and always passes the request on', () => {
    const warnings: string[] = []
    const check = createProxyCheck(
      () => 1,
      (message) => warnings.push(message),
    )
    let passed = 0
    for (let i = 0; i < 3; i++) check(request({}), null, () => passed++)
    check(request({ 'x-forwarded-for': '203.0.113.9' }), null, () => passed++)
    expect(passed).toBe(4)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('TRUSTED_PROXY_COUNT is 1')
    expect(warnings[0]).toContain('198.51.100.7')
    expect(warnings[0]).toContain('choose the address')
  })

  it('says a proxy in front of a server that trusts none shares one budget among all clients', () => {
    const warnings: string[] = []
    const check = createProxyCheck(
      () => 0,
      (message) => warnings.push(message),
    )
    check(request({}), null, () => {})
    expect(warnings).toEqual([])
    check(request({ 'x-forwarded-for': '203.0.113.9' }), null, () => {})
    check(request({ 'x-forwarded-for': '203.0.113.10' }), null, () => {})
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('TRUSTED_PROXY_COUNT is 0')
    expect(warnings[0]).toContain('shared rate-limit budget')
  })
})
