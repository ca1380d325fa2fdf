import { describe, expect, test } from 'vitest'
import {
  MemoryRateLimitStore,
  SHARED_CLIENT_KEY,
  clientKey,
  trustedProxyCount,
} from './rate-limit.server'

const rule = { limit: 3, windowMs: 60_000 }

function clock(start = 1_000_000) {
  let now = start
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

describe('MemoryRateLimitStore', () => {
  test('allows `limit` hits per window, then denies with the time left', async () => {
    const time = clock()
    const store = new MemoryRateLimitStore({ now: time.now })
    const results = []
    for (let i = 0; i < 3; i++) results.push(await store.hit('a', rule))
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ])
    time.advance(20_500)
    expect(await store.hit('a', rule)).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      retryAfterSeconds: 40,
    })
  })

  test('a new window starts when the old one ends', async () => {
    const time = clock()
    const store = new MemoryRateLimitStore({ now: time.now })
    for (let i = 0; i < 4; i++) await store.hit('a', rule)
    time.advance(60_000)
    expect(await store.hit('a', rule)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      retryAfterSeconds: 0,
    })
  })

  test('keys are counted separately', async () => {
    const store = new MemoryRateLimitStore()
    for (let i = 0; i < 3; i++) await store.hit('a', rule)
    expect((await store.hit('a', rule)).allowed).toBe(false)
    expect((await store.hit('b', rule)).allowed).toBe(true)
  })

  test('Retry-After is at least one second', async () => {
    const time = clock()
    const store = new MemoryRateLimitStore({ now: time.now })
    await store.hit('a', { limit: 1, windowMs: 1000 })
    time.advance(999.9)
    expect((await store.hit('a', { limit: 1, windowMs: 1000 })).retryAfterSeconds).toBe(1)
  })

  test('memory is bounded: past maxKeys the oldest window is forgotten', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 2 })
    const one = { limit: 1, windowMs: 60_000 }
    await store.hit('a', one)
    await store.hit('b', one)
    await store.hit('c', one)
    expect((await store.hit('b', one)).allowed).toBe(false)
    expect((await store.hit('c', one)).allowed).toBe(false)
    // "a" was evicted to make room for "c", so it starts afresh.
    expect((await store.hit('a', one)).allowed).toBe(true)
  })

  test('expired windows are swept before anything live is evicted', async () => {
    const time = clock()
    const store = new MemoryRateLimitStore({ now: time.now, maxKeys: 2 })
    await store.hit('old', { limit: 1, windowMs: 1000 })
    await store.hit('live', { limit: 1, windowMs: 60_000 })
    time.advance(2000)
    await store.hit('new', { limit: 1, windowMs: 60_000 })
    expect((await store.hit('live', { limit: 1, windowMs: 60_000 })).allowed).toBe(false)
  })
})

function request(forwardedFor?: string) {
  const headers = new Headers()
  if (forwardedFor !== undefined) headers.set('X-Forwarded-For', forwardedFor)
  return new Request('http://localhost/api/contact', { method: 'POST', headers })
}

describe('clientKey', () => {
  test('without a trusted proxy the header is ignored: one shared key', () => {
    expect(clientKey(request('198.51.100.7'), 0)).toBe(SHARED_CLIENT_KEY)
    expect(clientKey(request(), 0)).toBe(SHARED_CLIENT_KEY)
  })

  test('with one trusted proxy the rightmost entry is the client; spoofed entries are ignored', () => {
    expect(clientKey(request('1.1.1.1, 2.2.2.2, 198.51.100.7'), 1)).toBe('ip:198.51.100.7')
  })

  test('with two trusted proxies the second entry from the right is the client', () => {
    expect(clientKey(request('1.1.1.1, 198.51.100.7, 10.0.0.2'), 2)).toBe('ip:198.51.100.7')
  })

  test('repeated headers are read as one list', () => {
    const headers = new Headers()
    headers.append('X-Forwarded-For', '1.1.1.1')
    headers.append('X-Forwarded-For', '198.51.100.7')
    const req = new Request('http://localhost/', { headers })
    expect(clientKey(req, 1)).toBe('ip:198.51.100.7')
  })

  test.each([
    ['198.51.100.7:4711', 'ip:198.51.100.7'],
    ['::ffff:198.51.100.7', 'ip:198.51.100.7'],
    ['2001:DB8::1', 'ip:2001:db8::1'],
    ['[2001:db8::1]:443', 'ip:2001:db8::1'],
  ])('normalises %s', (entry, key) => {
    expect(clientKey(request(entry), 1)).toBe(key)
  })

  test.each([undefined, '', 'unknown', 'not an ip', ' , '])(
    'falls back to the shared key for %j',
    (header) => {
      expect(clientKey(request(header), 1)).toBe(SHARED_CLIENT_KEY)
    },
  )

  test('falls back to the shared key when there are fewer entries than trusted proxies', () => {
    expect(clientKey(request('198.51.100.7'), 2)).toBe(SHARED_CLIENT_KEY)
  })
})

describe('trustedProxyCount', () => {
  test('defaults to 0 and reads whole numbers', () => {
    expect(trustedProxyCount({})).toBe(0)
    expect(trustedProxyCount({ TRUSTED_PROXY_COUNT: '' })).toBe(0)
    expect(trustedProxyCount({ TRUSTED_PROXY_COUNT: ' 2 ' })).toBe(2)
  })

  test.each(['-1', '1.5', 'yes'])('rejects %j naming the variable', (value) => {
    expect(() => trustedProxyCount({ TRUSTED_PROXY_COUNT: value })).toThrow(/TRUSTED_PROXY_COUNT/)
  })
})
