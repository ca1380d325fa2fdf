import { afterAll, describe, expect, it } from 'vitest'

import { applySubscription, createTestDatabase, newUser } from '../setup/database'

/** When a past-due subscription's payment failed and when it is retried, under any order. */
let user: string

const applySub = (eventId: string, at: string, fields: object) =>
  applySubscription(db, 'stripe', eventId, at, user, { stripe_subscription_id: 'sub_1', ...fields })

async function noteFailure(failedAt: string, retryAt: string | null) {
  await db.query(`select public.note_payment_failure($1, $2, $3)`, [user, failedAt, retryAt])
}

async function dates() {
  const { rows } = await db.query<{ failed: Date | null; retry: Date | null }>(
    `select payment_failed_at as failed, payment_retry_at as retry
       from public.user_subscriptions where user_id = $1`,
    [user],
  )
  const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null)
  return { failed: iso(rows[0].failed), retry: iso(rows[0].retry) }
}

const PERIOD_1 = { current_period_start: '2026-01-01T00:00:00Z' }
const PERIOD_2 = { current_period_start: '2026-02-01T00:00:00Z' }

const db = await createTestDatabase()
afterAll(() => db.close())

describe('payment failure dates', () => {
  it('the failure event first, then the subscription falls past due: both dates kept', async () => {
    user = await newUser(db)
    await applySub('evt_1', '2026-01-01T00:00:00Z', { status: 'active', ...PERIOD_1 })
    await noteFailure('2026-01-01T01:00:00Z', '2026-01-04T01:00:00Z')
    await applySub('evt_2', '2026-01-01T01:00:00Z', { status: 'past_due', ...PERIOD_1 })
    expect(await dates()).toEqual({
      failed: '2026-01-01T01:00:00.000Z',
      retry: '2026-01-04T01:00:00.000Z',
    })
    // An older attempt's event delivered late changes nothing.
    await noteFailure('2025-12-31T00:00:00Z', null)
    expect((await dates()).retry).toBe('2026-01-04T01:00:00.000Z')
    // Paid: no longer past due, the dates are gone.
    await applySub('evt_3', '2026-01-02T00:00:00Z', { status: 'active', ...PERIOD_1 })
    expect(await dates()).toEqual({ failed: null, retry: null })
  })

  it('past due first (the failure event still on its way), then the retry date arrives', async () => {
    user = await newUser(db)
    await applySub('evt_4', '2026-01-01T00:00:00Z', { status: 'active', ...PERIOD_1 })
    // A late event of an earlier failure, while active: kept but never shown.
    await noteFailure('2025-12-01T01:00:00Z', '2025-12-04T01:00:00Z')
    await applySub('evt_5', '2026-02-01T01:00:00Z', { status: 'past_due', ...PERIOD_2 })
    // That earlier failure is of another period: the failure is dated by this event.
    expect(await dates()).toEqual({ failed: '2026-02-01T01:00:00.000Z', retry: null })
    await noteFailure('2026-02-01T01:00:00Z', '2026-02-04T01:00:00Z')
    expect(await dates()).toEqual({
      failed: '2026-02-01T01:00:00.000Z',
      retry: '2026-02-04T01:00:00.000Z',
    })
  })
})
