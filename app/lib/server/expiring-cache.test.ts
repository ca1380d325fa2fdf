import { afterEach, describe, expect, it, vi } from 'vitest'

import { cacheSize, ExpiringCache } from './expiring-cache'

describe('ExpiringCache', () => {
  it('gives a value until its time, then forgets it', () => {
    let now = 100
    const cache = new ExpiringCache<string>(10, () => now)
    cache.set('a', 'A', 110)
    now = 109
    expect(cache.get('a')).toBe('A')
    now = 110
    expect(cache.get('a')).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it('does not store an entry that has already expired, and drops the old value', () => {
    const cache = new ExpiringCache<string>(10, () => 100)
    cache.set('a', 'A', 200)
    cache.set('a', 'B', 100)
    expect(cache.get('a')).toBeUndefined()
    expect(cache.size).toBe(0)
  })

  it('drops the oldest entries beyond its bound; setting again makes an entry the newest', () => {
    const cache = new ExpiringCache<number>(2, () => 0)
    cache.set('a', 1, 10)
    cache.set('b', 2, 10)
    cache.set('a', 3, 10)
    cache.set('c', 4, 10)
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('a')).toBe(3)
    expect(cache.get('c')).toBe(4)
  })
})

describe('cacheSize (CACHES_OFF, a diagnosis switch)', () => {
  afterEach(() => vi.unstubAllEnvs())

  it('is the size given unless the cache is named in CACHES_OFF', () => {
    expect(cacheSize('pages', 50)).toBe(50)
    vi.stubEnv('CACHES_OFF', 'sessions,pages')
    expect(cacheSize('pages', 50)).toBe(0)
    expect(cacheSize('sessions', 10_000)).toBe(0)
    expect(cacheSize('grace', 10_000)).toBe(10_000)
  })

  it('a cache of size 0 keeps nothing', () => {
    const cache = new ExpiringCache<string>(0, () => 0)
    cache.set('a', 'A', 10)
    expect(cache.get('a')).toBeUndefined()
  })
})
