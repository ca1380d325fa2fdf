import { createClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Database } from '../../database'
import { createTestDatabase } from '../../testing/database'
import { LOCAL_SERVICE_ROLE_KEY } from '../keys'
import { createRestHandler } from './handler'
import { createRestPool } from './pool'
import { TEST_URL } from './testing'

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

describe('createRestPool (db-pool, db-pool-acquisition-timeout)', () => {
  it('runs at most `size` at once; the others wait, in order of arrival', async () => {
    const pool = createRestPool({ size: 2, acquisitionTimeoutMs: 5_000 })
    const gates = [gate(), gate(), gate(), gate()]
    const started: number[] = []
    const runs = gates.map((g, i) =>
      pool.use(async () => {
        started.push(i)
        await g.opened
        return i
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(started).toEqual([0, 1])
    expect(pool.state()).toEqual({ inUse: 2, waiting: 2 })
    gates[1].open()
    await runs[1]
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(started).toEqual([0, 1, 2])
    for (const g of gates) g.open()
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3])
    expect(pool.state()).toEqual({ inUse: 0, waiting: 0 })
  })

  it('a request that waits longer than the acquisition timeout is refused: 504 PGRST003', async () => {
    const pool = createRestPool({ size: 1, acquisitionTimeoutMs: 100 })
    const held = gate()
    const holder = pool.use(() => held.opened)
    const startedAt = Date.now()
    await expect(pool.use(async () => 'never')).rejects.toMatchObject({
      status: 504,
      body: {
        code: 'PGRST003',
        details: null,
        hint: null,
        message: 'Timed out acquiring connection from connection pool.',
      },
    })
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(95)
    expect(Date.now() - startedAt).toBeLessThan(1_000)
    // The one that timed out left the queue: the connection goes to the next caller.
    expect(pool.state()).toEqual({ inUse: 1, waiting: 0 })
    held.open()
    await holder
    expect(await pool.use(async () => 'next')).toBe('next')
  })

  it("defaults to PostgREST's: 10 connections, 10 s", async () => {
    const pool = createRestPool()
    const held = gate()
    const holders = Array.from({ length: 11 }, () => pool.use(() => held.opened))
    expect(pool.state()).toEqual({ inUse: 10, waiting: 1 })
    held.open()
    await Promise.all(holders)
  })
})

describe('the REST handler with a full pool', () => {
  let db: Database
  beforeAll(async () => {
    db = await createTestDatabase()
  })
  afterAll(() => db.close())

  it('answers a request beyond the pool 504 PGRST003 after the timeout, as PostgREST does', async () => {
    // A database whose first transaction is slow: it holds the pool's only connection.
    const slow = gate()
    const entered = gate()
    let first = true
    const slowDatabase: Database = {
      kind: db.kind,
      query: (sql, params) => db.query(sql, params),
      exec: (sql) => db.exec(sql),
      async transaction(fn, options) {
        if (first) {
          first = false
          entered.open()
          await slow.opened
        }
        return db.transaction(fn, options)
      },
      close: () => db.close(),
    }
    const handler = createRestHandler({
      database: slowDatabase,
      pool: { size: 1, acquisitionTimeoutMs: 150 },
    })
    const service = createClient(TEST_URL, LOCAL_SERVICE_ROLE_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
      global: { fetch: (input, init) => handler(new Request(input, init)) },
    })
    // (A query builder sends when awaited: `then` sends it now.)
    const held = service
      .rpc('session_is_active', {
        p_session_id: '00000000-0000-0000-0000-000000000000',
        p_user_id: '00000000-0000-0000-0000-000000000000',
      })
      .then((answer) => answer)
    await entered.opened
    const startedAt = Date.now()
    const refused = await service.from('user_profiles').select('user_id').limit(1)
    expect(Date.now() - startedAt).toBeLessThan(1_000)
    expect(refused.status).toBe(504)
    expect(refused.error).toMatchObject({
      code: 'PGRST003',
      message: 'Timed out acquiring connection from connection pool.',
    })
    slow.open()
    expect((await held).error).toBeNull()
    const after = await service.from('user_profiles').select('user_id').limit(1)
    expect(after.status).toBe(200)
  })
})
