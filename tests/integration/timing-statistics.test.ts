import { describe, expect, it } from 'vitest'

import { bestThresholdAccuracy, mannWhitneyU } from './timing-statistics'

describe('the timing statistics', () => {
  it('Mann-Whitney U: a clear shift is significant, interleaved samples are not', () => {
    const low = Array.from({ length: 30 }, (_, i) => 25 + (i % 7))
    const high = Array.from({ length: 30 }, (_, i) => 82 + (i % 7))
    expect(mannWhitneyU(low, high).u).toBe(0)
    expect(mannWhitneyU(low, high).p).toBeLessThan(1e-5)
    const even = Array.from({ length: 30 }, (_, i) => 2 * i)
    const odd = Array.from({ length: 30 }, (_, i) => 2 * i + 1)
    expect(mannWhitneyU(even, odd).p).toBeGreaterThan(0.5)
  })

  it('best threshold accuracy: 1 for separate samples, about chance for interleaved ones', () => {
    expect(bestThresholdAccuracy([1, 2, 3], [4, 5, 6])).toBe(1)
    expect(bestThresholdAccuracy([4, 5, 6], [1, 2, 3])).toBe(1)
    const even = Array.from({ length: 30 }, (_, i) => 2 * i)
    const odd = Array.from({ length: 30 }, (_, i) => 2 * i + 1)
    expect(bestThresholdAccuracy(even, odd)).toBeLessThan(0.55)
  })
})
