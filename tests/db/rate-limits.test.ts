import { afterAll, describe, expect, it } from 'vitest'

import { createTestDatabase, value } from '../setup/database'

// The shared rate-limit store's fixed windows, counted atomically (rate_limit_hit is kept for
// the previous release).

const db = await createTestDatabase()
afterAll(() => db.close())

type Verdict = { allowed: boolean; remaining: number; retry_after_seconds: number }

async function hit(key: string, limit: number, windowMs: number) {
  return value<Verdict>(db, 'select public.rate_limit_hit($1, $2, $3) as value', [
    key,
    limit,
    windowMs,
  ])
}

describe('rate_limit_hit', () => {
  it('allows `limit` hits per window, then denies with the seconds left', async () => {
    const verdicts = []
    for (let i = 0; i < 4; i++) verdicts.push(await hit('a', 3, 60_000))
    expect(verdicts.slice(0, 3)).toEqual([
      { allowed: true, remaining: 2, retry_after_seconds: 0 },
      { allowed: true, remaining: 1, retry_after_seconds: 0 },
      { allowed: true, remaining: 0, retry_after_seconds: 0 },
    ])
    expect(verdicts[3]).toMatchObject({ allowed: false, remaining: 0 })
    expect([59, 60]).toContain(verdicts[3].retry_after_seconds)
  })

  it('counts keys separately', async () => {
    for (let i = 0; i < 2; i++) await hit('b', 1, 60_000)
    expect((await hit('b', 1, 60_000)).allowed).toBe(false)
    expect((await hit('c', 1, 60_000)).allowed).toBe(true)
  })

  it('starts a new window once the old one has ended', async () => {
    await hit('short', 1, 300)
    expect((await hit('short', 1, 300)).allowed).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(await hit('short', 1, 300)).toEqual({
      allowed: true,
      remaining: 0,
      retry_after_seconds: 0,
    })
    const { rows } = await db.query<{ count: number }>(
      `select count from public.rate_limits where key = 'short'`,
    )
    expect(rows).toEqual([{ count: 1 }])
  })

  it('counts concurrent hits exactly once each', async () => {
    const verdicts = await Promise.all(
      Array.from({ length: 40 }, () => hit('concurrent', 25, 60_000)),
    )
    expect(verdicts.filter((verdict) => verdict.allowed)).toHaveLength(25)
    const { rows } = await db.query<{ count: number }>(
      `select count from public.rate_limits where key = 'concurrent'`,
    )
    expect(rows).toEqual([{ count: 40 }])
  })

  it('refuses invalid arguments', async () => {
    await expect(hit('x', 0, 1000)).rejects.toThrow(/invalid arguments/)
    await expect(hit('x', 1, 0)).rejects.toThrow(/invalid arguments/)
  })
})

type Verdicts = { allowed: boolean; limit: number; remaining: number; retryAfterSeconds: number }[]

async function hits(counters: [key: string, limit: number, windowMs: number][]) {
  return value<Verdicts>(db, 'select public.rate_limit_hits($1, $2, $3) as value', [
    counters.map(([key]) => key),
    counters.map(([, l]) => l),
    counters.map(([, , w]) => w),
  ])
}

describe('rate_limit_hits', () => {
  it('counts every key of a request in one call, each verdict in order', async () => {
    await hits([['m-full', 1, 60_000]])
    const verdicts = await hits([
      ['m-new', 3, 60_000],
      ['m-full', 1, 60_000],
      ['m-other', 2, 1_000],
    ])
    expect(verdicts[0]).toEqual({ allowed: true, limit: 3, remaining: 2, retryAfterSeconds: 0 })
    expect(verdicts[1]).toMatchObject({ allowed: false, remaining: 0 })
    expect(verdicts[1].retryAfterSeconds).toBeGreaterThanOrEqual(59)
    expect(verdicts[2]).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfterSeconds: 0 })
  })

  it('counts a key given twice twice, each hit with its own verdict', async () => {
    const verdicts = await hits([
      ['m-twice', 2, 60_000],
      ['m-x', 5, 60_000],
      ['m-twice', 2, 60_000],
      ['m-twice', 2, 60_000],
    ])
    expect(verdicts.map((verdict) => verdict.remaining)).toEqual([1, 4, 0, 0])
    expect(verdicts.map((verdict) => verdict.allowed)).toEqual([true, true, true, false])
    const { rows } = await db.query<{ count: number }>(
      `select count from public.rate_limits where key = 'm-twice'`,
    )
    expect(rows).toEqual([{ count: 3 }])
  })

  it('counts concurrent calls over the same keys exactly once each, without deadlocks', async () => {
    const pair: [string, number, number][] = [
      ['m-c1', 20, 60_000],
      ['m-c2', 100, 60_000],
    ]
    const verdicts = await Promise.all(
      Array.from({ length: 30 }, (_, i) => hits(i % 2 ? pair : [...pair].reverse())),
    )
    const first = verdicts.map((pair, i) => pair[i % 2 ? 0 : 1])
    expect(first.filter((verdict) => verdict.allowed)).toHaveLength(20)
    const { rows } = await db.query<{ key: string; count: number }>(
      `select key, count from public.rate_limits where key in ('m-c1', 'm-c2') order by key`,
    )
    expect(rows).toEqual([
      { key: 'm-c1', count: 30 },
      { key: 'm-c2', count: 30 },
    ])
  })

  it('refuses invalid arguments', async () => {
    await expect(hits([])).rejects.toThrow(/invalid arguments/)
    await expect(hits([['x', 0, 1000]])).rejects.toThrow(/invalid arguments/)
    await expect(hits([['x', 1, 0]])).rejects.toThrow(/invalid arguments/)
    await expect(
      db.query(`select public.rate_limit_hits(array['a', 'b'], array[1], array[1000, 1000])`),
    ).rejects.toThrow(/invalid arguments/)
  })

  it('leaves room on each page for the rewrites, and no index on the window', async () => {
    const { rows } = await db.query<{ options: string[] | null; indexes: string[] }>(
      `select c.reloptions as options,
              array(select indexrelid::regclass::text from pg_index where indrelid = c.oid) as indexes
         from pg_class c where c.oid = 'public.rate_limits'::regclass`,
    )
    expect(rows[0].options).toContain('fillfactor=50')
    expect(rows[0].indexes).toEqual(['rate_limits_pkey'])
  })
})
