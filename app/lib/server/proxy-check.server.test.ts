import type { IncomingMessage } from 'node:http'

import { describe, expect, it } from 'vitest'

import { createProxyCheck, proxyMismatch } from './proxy-check.server'

describe('proxyMismatch', () => {
  it('no proxy trusted: a forwarded-address header on a request is a mismatch', () => {
    expect(proxyMismatch({}, '/', 0)).toBeNull()
    expect(proxyMismatch({ 'x-forwarded-for': '203.0.113.9' }, '/pricing', 0)).toBe(
      'forwarded-without-proxy',
    )
    expect(proxyMismatch({ forwarded: 'for=203.0.113.9' }, '/', 0)).toBe('forwarded-without-proxy')
    expect(proxyMismatch({ 'x-real-ip': '203.0.113.9' }, '/', 0)).toBe('forwarded-without-proxy')
  })

  it('N proxies trusted: fewer than N X-Forwarded-For addresses is a direct connection', () => {
    expect(proxyMismatch({}, '/sign-in', 1)).toBe('proxy-without-forwarded')
    expect(proxyMismatch({ 'x-forwarded-for': ' , ' }, '/', 1)).toBe('proxy-without-forwarded')
    expect(proxyMismatch({ 'x-forwarded-for': '203.0.113.9' }, '/', 1)).toBeNull()
    expect(proxyMismatch({ 'x-forwarded-for': '203.0.113.9' }, '/', 2)).toBe(
      'proxy-without-forwarded',
    )
    expect(proxyMismatch({ 'x-forwarded-for': '198.51.100.1, 10.0.0.2' }, '/', 2)).toBeNull()
  })

  it("leaves the platform's health checks out", () => {
    expect(proxyMismatch({}, '/healthz', 1)).toBeNull()
    expect(proxyMismatch({}, '/healthz?live', 1)).toBeNull()
    expect(proxyMismatch({ 'x-forwarded-for': '203.0.113.9' }, '/healthz', 0)).toBeNull()
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
