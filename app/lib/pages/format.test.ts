import { describe, expect, it } from 'vitest'

import { formatDate, formatMoney } from './format'

describe('formatMoney', () => {
  it.each([
    [2900, 'usd', '$29.00'],
    [-900, 'usd', '-$9.00'],
    [0, 'eur', '€0.00'],
    [123456, 'USD', '$1,234.56'],
    [500, 'jpy', '¥500'],
    [-1950, 'eur', '-€19.50'],
  ])('%i %s -> %s', (amount, currency, expected) => {
    expect(formatMoney(amount, currency)).toBe(expected)
  })
})

describe('formatDate', () => {
  it('formats in UTC', () => {
    expect(formatDate('2026-03-05T23:30:00Z')).toBe('March 5, 2026')
  })
  it('shows a dash for missing or invalid values', () => {
    expect(formatDate(null)).toBe('—')
    expect(formatDate('nope')).toBe('—')
  })
})
