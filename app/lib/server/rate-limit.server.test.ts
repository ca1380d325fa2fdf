import { afterEach, describe, expect, test, vi } from 'vitest'

import { resetEnvForTests } from '~/env.server'

import {
  clientAddress,
  clientCounter,
  clientKey,
  combineRateLimitResults,
  getRateLimitStore,
  MemoryRateLimitStore,
  PostgresRateLimitStore,
  retryAfterText,
  setRateLimitStore,
  SHARED_CLIENT_KEY,
} from './rate-limit.server'

afterEach(() => {
  vi.unstubAllEnvs()
  resetEnvForTests()
  setRateLimitStore(undefined)
})

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
  // The X-Forwarded-For entry the trusted proxies name, keyed by IPv4 address or IPv6 /64;
  // without a trusted proxy (or a usable entry) one shared key.
  test.each<[string | undefined, number, string]>([
    ['198.51.100.7', 0, SHARED_CLIENT_KEY],
    [undefined, 0, SHARED_CLIENT_KEY],
    // Spoofed entries on the left are ignored.
    ['1.1.1.1, 2.2.2.2, 198.51.100.7', 1, 'ip:198.51.100.7'],
    ['1.1.1.1, 198.51.100.7, 10.0.0.2', 2, 'ip:198.51.100.7'],
    ['198.51.100.7', 2, SHARED_CLIENT_KEY],
    ['198.51.100.7:4711', 1, 'ip:198.51.100.7'],
    ['::ffff:198.51.100.7', 1, 'ip:198.51.100.7'],
    ['::FFFF:C633:6407', 1, 'ip:198.51.100.7'],
    ['2001:DB8::1', 1, 'ip:2001:db8::/64'],
    ['[2001:db8::1]:443', 1, 'ip:2001:db8::/64'],
    ['2001:db8:0:0:ffff:ffff:ffff:ffff', 1, 'ip:2001:db8::/64'],
    ['2001:db8:aa:bb:1:2:3:4', 1, 'ip:2001:db8:aa:bb::/64'],
    ['fe80::1%eth0', 1, 'ip:fe80::/64'],
    ...[undefined, '', 'unknown', 'not an ip', ' , '].map(
      (header): [string | undefined, number, string] => [header, 1, SHARED_CLIENT_KEY],
    ),
  ])('X-Forwarded-For %j behind %i proxies → %s', (header, proxies, key) => {
    expect(clientKey(request(header), proxies)).toBe(key)
  })

  test('repeated headers are read as one list', () => {
    const headers = new Headers()
    headers.append('X-Forwarded-For', '1.1.1.1')
    headers.append('X-Forwarded-For', '198.51.100.7')
    const req = new Request('http://localhost/', { headers })
    expect(clientKey(req, 1)).toBe('ip:198.51.100.7')
  })

  test('IPv6 addresses within one /64 are one client; the next /64 is another', () => {
    const keys = ['2001:db8:1:2::1', '2001:db8:1:2:8000::9', '2001:db8:1:2:dead:beef:0:1'].map(
      (address) => clientKey(request(address), 1),
    )
    expect(new Set(keys)).toEqual(new Set(['ip:2001:db8:1:2::/64']))
    expect(clientKey(request('2001:db8:1:3::1'), 1)).toBe('ip:2001:db8:1:3::/64')
  })

  // Supabase Auth takes exactly one IP address in Sb-Forwarded-For (net.ParseIP): a /64
  // there is ignored and the request counted against this server.
  test.each([
    ['2001:DB8:1:2::1', '2001:db8:1:2::1'],
    ['[2001:db8:0::1]:443', '2001:db8::1'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['198.51.100.7:4711', '198.51.100.7'],
  ])('the address forwarded for %s is the one address %s, not its /64', (entry, address) => {
    expect(clientAddress(request(entry), 1)).toBe(address)
    expect(clientAddress(request(), 0, entry)).toBe(address)
  })

  test('the socket address of a direct IPv6 connection is keyed by its /64 too', () => {
    expect(clientKey(request(), 0, '2001:db8:5:6::7')).toBe('ip:2001:db8:5:6::/64')
    expect(clientKey(request(), 0, '::ffff:198.51.100.7')).toBe('ip:198.51.100.7')
  })
})

describe('clientKey and TRUSTED_PROXY_COUNT', () => {
  test.each([
    ['', SHARED_CLIENT_KEY],
    ['1', 'ip:198.51.100.7'],
    ['2', 'ip:1.1.1.1'],
  ])('the default number of proxies is the configuration’s (%j)', (count, key) => {
    vi.stubEnv('TRUSTED_PROXY_COUNT', count)
    resetEnvForTests()
    expect(clientKey(request('1.1.1.1, 198.51.100.7'))).toBe(key)
  })
})

/** Hits every counter, as the auth flows do, and combines the verdicts. */
async function hitRateLimits(hits: { key: string; rule: typeof rule }[]) {
  const store = getRateLimitStore()
  return combineRateLimitResults(await Promise.all(hits.map((hit) => store.hit(hit.key, hit.rule))))
}

describe('clientCounter', () => {
  const limits = { client: { limit: 5, windowMs: 1000 }, shared: { limit: 100, windowMs: 1000 } }

  test('an identified client has its own key and budget', () => {
    expect(clientCounter('contact', 'ip:198.51.100.7', limits)).toEqual({
      key: 'contact:ip:198.51.100.7',
      rule: limits.client,
    })
  })

  test('unidentified clients share the budget over 8 rows in turn, an eighth each', () => {
    const counters = Array.from({ length: 16 }, () =>
      clientCounter('spread', SHARED_CLIENT_KEY, limits),
    )
    expect(counters.slice(0, 8).map((counter) => counter.key)).toEqual(
      Array.from({ length: 8 }, (_, i) => `spread:shared:${i}`),
    )
    expect(counters.slice(8)).toEqual(counters.slice(0, 8))
    // 100 over 8 rows: 13 each, rounded up.
    for (const counter of counters) expect(counter.rule).toEqual({ limit: 13, windowMs: 1000 })
  })
})

describe('combineRateLimitResults', () => {
  test('every counter counts; denied when any denies, with the longest wait', async () => {
    const time = clock()
    setRateLimitStore(new MemoryRateLimitStore({ now: time.now }))
    const short = { limit: 1, windowMs: 10_000 }
    const long = { limit: 2, windowMs: 60_000 }
    const hits = [
      { key: 'a', rule: short },
      { key: 'b', rule: long },
    ]
    expect(await hitRateLimits(hits)).toMatchObject({ allowed: true, remaining: 0 })
    expect(await hitRateLimits(hits)).toMatchObject({ allowed: false, retryAfterSeconds: 10 })
    expect(await hitRateLimits(hits)).toMatchObject({ allowed: false, retryAfterSeconds: 60 })
    // "b" was counted each time even though "a" had already denied.
    expect(await hitRateLimits([{ key: 'b', rule: long }])).toMatchObject({ allowed: false })
  })

  test('retryAfterText rounds up to whole minutes', () => {
    expect(retryAfterText(1)).toBe('1 minute')
    expect(retryAfterText(61)).toBe('2 minutes')
  })
})

describe('PostgresRateLimitStore', () => {
  test('sends every hit of one turn in one rate_limit_hits call and maps each verdict', async () => {
    const rpc = vi.fn(async () => ({
      data: [
        { allowed: true, limit: 3, remaining: 2, retryAfterSeconds: 0 },
        { allowed: false, limit: 1, remaining: 0, retryAfterSeconds: 42 },
      ],
      error: null,
    }))
    const store = new PostgresRateLimitStore(() => ({ rpc }) as never)
    const verdicts = await Promise.all([
      store.hit('a', { limit: 3, windowMs: 60_000 }),
      store.hit('b', { limit: 1, windowMs: 1000 }),
    ])
    expect(verdicts).toEqual([
      { allowed: true, limit: 3, remaining: 2, retryAfterSeconds: 0 },
      { allowed: false, limit: 1, remaining: 0, retryAfterSeconds: 42 },
    ])
    expect(rpc).toHaveBeenCalledTimes(1)
    expect(rpc).toHaveBeenCalledWith('rate_limit_hits', {
      p_keys: ['a', 'b'],
      p_limits: [3, 1],
      p_window_ms: [60_000, 1000],
    })
    // A later turn is a call of its own.
    await store.hit('a', { limit: 3, windowMs: 60_000 }).catch(() => {})
    expect(rpc).toHaveBeenCalledTimes(2)
  })

  test.each([
    [{ data: null, error: { message: 'down' } }, /down/],
    [{ data: {}, error: null }, /unexpected/],
    [{ data: [], error: null }, /verdict per hit/],
  ])('the answer %j throws (the caller answers 500)', async (answer, message) => {
    const store = new PostgresRateLimitStore(() => ({ rpc: async () => answer }) as never)
    await expect(store.hit('k', { limit: 1, windowMs: 1000 })).rejects.toThrow(message)
  })

  test('RATE_LIMIT_STORE picks the store', () => {
    for (const [name, kind] of [
      ['memory', MemoryRateLimitStore],
      ['postgres', PostgresRateLimitStore],
    ] as const) {
      vi.stubEnv('RATE_LIMIT_STORE', name)
      resetEnvForTests()
      setRateLimitStore(undefined)
      expect(getRateLimitStore()).toBeInstanceOf(kind)
    }
  })
})
