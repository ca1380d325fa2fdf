import { describe, expect, it } from 'vitest'

import { pastDueNotice, pastDueSummary } from './status'

const NOW = Date.parse('2026-11-27T12:00:00Z')
const stripe = {
  payment_failed_at: '2026-11-26T10:00:00Z',
  payment_retry_at: '2026-11-29T10:00:00Z',
}

describe('past due wording', () => {
  const later = Date.parse('2026-11-30T00:00:00Z')
  const failed = 'Your payment on November 26, 2026 did not go through'
  const help = 'Payments are retried. Add another card in the billing portal.'

  it.each<[string, string]>([
    [pastDueSummary(stripe, NOW), `${failed}; we will retry on November 29, 2026`],
    [
      pastDueNotice({ ...stripe, owed: '$29.00' }, NOW),
      'Your payment of $29.00 on November 26, 2026 did not go through; we will retry on November 29, 2026. Update your payment method to keep your plan.',
    ],
    // No retry named once it is past, or when none is planned.
    [pastDueSummary(stripe, later), failed],
    [pastDueSummary({ ...stripe, payment_retry_at: null }, NOW), failed],
    // Without a failure date (not yet known) it still says what happened.
    [
      pastDueNotice({ ...stripe, payment_failed_at: null }, NOW),
      'Your last payment did not go through. Update your payment method to keep your plan.',
    ],
    // The provider's own help where its portal cannot open on the card form.
    [pastDueNotice({ ...stripe, payment_retry_at: null, help }), `${failed}. ${help}`],
    // After a new card is saved: pay now or wait for the retry.
    [
      pastDueNotice({ ...stripe, payNow: '$9.00' }, NOW),
      'Your new card is saved. Pay the $9.00 now, or we will retry on November 29, 2026.',
    ],
    [
      pastDueNotice({ ...stripe, payNow: '$9.00' }, later),
      'Your new card is saved. Pay the $9.00 now, or we will retry soon.',
    ],
  ])('%#: %s', (said, expected) => {
    expect(said).toBe(expected)
  })
})
