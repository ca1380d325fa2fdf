import { describe, expect, it } from 'vitest'

import { MAX_RECHECKS, nextRecheck } from './success-recheck'

const url = (query: string) => new URL(`https://example.com/success${query}`)

describe('nextRecheck', () => {
  it('reloads a pending or confirming page, counting attempts and keeping the checkout id', () => {
    expect(nextRecheck(url('?session_id=cs_1'), 'confirming')).toBe(
      '/success?session_id=cs_1&attempt=1',
    )
    expect(nextRecheck(url('?checkout_id=abc&attempt=3'), 'open')).toBe(
      '/success?checkout_id=abc&attempt=4',
    )
  })

  it('stops after the last attempt and ignores a garbage attempt count', () => {
    expect(nextRecheck(url(`?session_id=cs_1&attempt=${MAX_RECHECKS}`), 'confirming')).toBeNull()
    expect(nextRecheck(url('?session_id=cs_1&attempt=x'), 'open')).toBe(
      '/success?session_id=cs_1&attempt=1',
    )
  })

  it.each(['complete', 'failed', 'missing'] as const)(
    'never reloads a final state (%s)',
    (status) => {
      expect(nextRecheck(url('?session_id=cs_1'), status)).toBeNull()
    },
  )
})
