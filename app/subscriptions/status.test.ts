import { describe, expect, it } from 'vitest'

import { pastDueNotice, pastDueSummary } from './status'

const NOW = Date.parse('2026-11-27T12:00:00Z')
const stripe = {
  payment_failed_at: '2026-11-26T10:00:00Z',
  payment_retry_at: '2026-11-29T10:00:00Z',
}

describe('past due wording', () => {
  it('says what failed, when, and when it is retried', () => {
    expect(pastDueSummary(stripe, NOW)).toBe(
      'Your payment on November 26, 2026 did not go through; we will retry on November 29, 2026',
    )
    expect(pastDueNotice({ ...stripe, owed: '$29.00' }, NOW)).toBe(
      'Your payment of $29.00 on November 26, 2026 did not go through; we will retry on November 29, 2026. Update your payment method to keep your plan.',
    )
  })

  it('names no retry once it is past, or when none is planned', () => {
    const later = Date.parse('2026-11-30T00:00:00Z')
    const failed = 'Your payment on November 26, 2026 did not go through'
    expect(pastDueSummary(stripe, later)).toBe(failed)
    expect(pastDueSummary({ ...stripe, payment_retry_at: null }, NOW)).toBe(failed)
  })

  it('without a failure date (not yet known) still says what happened', () => {
    expect(pastDueNotice({ ...stripe, payment_failed_at: null }, NOW)).toBe(
      'Your last payment did not go through. Update your payment method to keep your plan.',
    )
  })

  it("says the provider's own help where its portal cannot open on the card form", () => {
    const help = 'Payments are retried. Add another card in the billing portal.'
    expect(
      pastDueNotice({ payment_failed_at: stripe.payment_failed_at, payment_retry_at: null, help }),
    ).toBe(`Your payment on November 26, 2026 did not go through. ${help}`)
  })

  it('after a new card is saved, says what is left: pay now or wait for the retry', () => {
    expect(pastDueNotice({ ...stripe, payNow: '$9.00' }, NOW)).toBe(
      'Your new card is saved. Pay the $9.00 now, or we will retry on November 29, 2026.',
    )
    expect(pastDueNotice({ ...stripe, payNow: '$9.00' }, Date.parse('2026-11-30T00:00:00Z'))).toBe(
      'Your new card is saved. Pay the $9.00 now, or we will retry soon.',
    )
  })
})
