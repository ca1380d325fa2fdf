import { describe, expect, it } from 'vitest'

import { databaseError, isDatabaseUnavailable } from './database-availability.server'

describe('isDatabaseUnavailable', () => {
  it.each([
    { code: 'PGRST000', message: 'Could not connect with the database' },
    { code: 'PGRST001', message: 'Database client error. Retrying the connection.' },
    { code: 'PGRST003', message: 'Timed out acquiring connection from connection pool.' },
    { code: '08006', message: 'connection failure' },
    { code: '57P01', message: 'terminating connection due to administrator command' },
    { code: '57P03', message: 'the database system is starting up' },
    { code: '', message: 'TypeError: fetch failed' },
    { code: '', message: 'connect ECONNREFUSED 127.0.0.1:54321' },
    { message: 'bad gateway', status: 502 },
    new TypeError('fetch failed'),
    new Error('wrapped', { cause: new Error('read ECONNRESET') }),
  ])('unavailable: %o', (failure) => {
    expect(isDatabaseUnavailable(failure)).toBe(true)
  })

  it.each([
    { code: '23505', message: 'duplicate key value violates unique constraint' },
    { code: '42501', message: 'permission denied for table user_subscriptions' },
    { code: 'PGRST202', message: 'Could not find the function' },
    { code: 'P0001', message: 'invalid event' },
    new Error('rate_limit_hit returned an unexpected value'),
    null,
    'fetch failed?',
  ])('a real error: %o', (failure) => {
    expect(isDatabaseUnavailable(failure)).toBe(false)
  })

  it("databaseError gives Remix's data(…, 503) for an outage, a plain Error otherwise", () => {
    const outage = databaseError('read', { code: 'PGRST001', message: 'retrying' })
    expect(outage).not.toBeInstanceOf(Error)
    expect(outage).toMatchObject({ init: { status: 503 } })
    expect(String((outage as { data: unknown }).data)).toMatch(/cannot reach our database/)
    // Caught again (the webhooks), it is still told from a bug.
    expect(isDatabaseUnavailable(outage)).toBe(true)
    const bug = databaseError('read', { code: '42501', message: 'permission denied' })
    expect(bug).toBeInstanceOf(Error)
    expect(isDatabaseUnavailable(bug)).toBe(false)
    expect((bug as Error).message).toBe('read failed: permission denied (42501)')
  })
})
