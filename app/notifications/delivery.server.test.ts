import { describe, expect, it } from 'vitest'

import { MAX_ATTEMPTS, nextAttemptAt } from './delivery.server'

describe('nextAttemptAt', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  const delay = (attempt: number) => (nextAttemptAt(attempt, now, 30_000)?.getTime() ?? now) - now

  it('doubles the wait after each failed attempt, up to 6 hours', () => {
    expect([1, 2, 3, 4].map(delay)).toEqual([30_000, 60_000, 120_000, 240_000])
    expect(delay(11)).toBe(6 * 60 * 60 * 1000)
  })

  it('gives up after MAX_ATTEMPTS (the row is dead), having waited about 15 hours in all', () => {
    expect(nextAttemptAt(MAX_ATTEMPTS, now, 30_000)).toBeNull()
    const total = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => delay(i + 1)).reduce(
      (sum, ms) => sum + ms,
      0,
    )
    expect(total / 3_600_000).toBeGreaterThan(14)
    expect(total / 3_600_000).toBeLessThan(16)
  })
})
