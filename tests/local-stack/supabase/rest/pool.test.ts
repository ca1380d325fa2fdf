import { describe, expect, it } from 'vitest'

import { createRestPool } from './pool'

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
