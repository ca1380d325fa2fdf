import { randomUUID } from 'node:crypto'

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import type { Queryable } from '../local-stack/database'
import {
  applySubscription,
  createTestDatabase,
  newUser,
  recordPayment as record,
  value,
} from '../setup/database'

// The outbox: rows written in the transaction of the event that causes them, one per cause,
// and the deliverer's claim / finish protocol (skip locked, attempts, retry, dead).
const user = randomUUID()
const email = 'outbox@example.com'

interface OutboxRow {
  id: string
  kind: string
  to_address: string
  data: Record<string, unknown>
  category: string
  status: string
  attempts: number
  next_attempt_at: Date
  last_error: string | null
}

async function outbox(kind?: string) {
  const { rows } = await db.query<OutboxRow>(
    `select * from public.notification_outbox where user_id = $1 and ($2::text is null or kind = $2)
     order by created_at, to_address`,
    [user, kind ?? null],
  )
  return rows
}

const recordPayment = (q: Queryable, eventId: string, payment: object) =>
  record(q, 'stripe', eventId, { user_id: user, provider: 'stripe', currency: 'usd', ...payment })

const applySub = (eventId: string, at: string, fields: object, provider = 'stripe') =>
  applySubscription(db, provider, eventId, at, user, { provider, ...fields })

async function claim(q: Queryable = db, limit = 10, leaseSeconds = 60) {
  const { rows } = await q.query<{ id: string; attempts: number; wanted: boolean; kind: string }>(
    `select * from public.claim_notifications($1, $2)`,
    [limit, leaseSeconds],
  )
  return rows
}

const finish = (id: string, attempt: number, outcome: string, retryAt?: string, error?: string) =>
  value<boolean>(db, `select public.finish_notification($1, $2, $3, $4, $5) as value`, [
    id,
    attempt,
    outcome,
    error ?? null,
    retryAt ?? null,
  ])

/** Every row's next attempt is due (`ago` before now). */
const due = (ago = '0') =>
  db.query(`update public.notification_outbox set next_attempt_at = now() - $1::interval`, [ago])

const db = await createTestDatabase()
beforeAll(() => newUser(db, email, user))
afterAll(() => db.close())

describe('enqueued with the event, in its transaction', () => {
  beforeEach(() => db.query(`delete from public.notification_outbox`))

  it('a recorded payment queues its receipt; the duplicate event queues nothing', async () => {
    const payment = { provider_payment_id: 'in_r1', amount: 1900, status: 'paid' }
    expect(await recordPayment(db, 'evt_r1', payment)).toBe('applied')
    expect(await recordPayment(db, 'evt_r1', payment)).toBe('duplicate')
    expect(await recordPayment(db, 'evt_r1b', payment)).toBe('exists')
    const paid = `select id as value from public.payment_history where provider_payment_id = 'in_r1'`
    expect(await outbox()).toEqual([
      expect.objectContaining({
        kind: 'payment_receipt',
        to_address: email,
        status: 'pending',
        attempts: 0,
        data: { payment_id: await value(db, paid) },
      }),
    ])
  })

  it('a transaction that fails after the payment leaves neither the payment nor its mail', async () => {
    await expect(
      db.transaction(async (tx) => {
        await recordPayment(tx, 'evt_rollback', {
          provider_payment_id: 'in_rollback',
          amount: 500,
          status: 'paid',
        })
        expect((await tx.query(`select 1 from public.notification_outbox`)).rows).toHaveLength(1)
        throw new Error('crash after the payment')
      }),
    ).rejects.toThrow('crash after the payment')
    expect(await outbox()).toEqual([])
    const { rows } = await db.query(
      `select 1 from public.payment_history where provider_payment_id = 'in_rollback'`,
    )
    expect(rows).toEqual([])
  })

  it('no receipt for a zero-amount invoice', async () => {
    await recordPayment(db, 'evt_zero', {
      provider_payment_id: 'in_zero',
      amount: 0,
      status: 'paid',
    })
    expect(await outbox()).toEqual([])
  })

  it('a failed payment is recorded and queued together, once per invoice attempt', async () => {
    const fail = (eventId: string, attempt: number, userId: string | null = user) =>
      value(
        db,
        `select public.record_payment_failure('stripe', $1, 'invoice.payment_failed', now(), $2, $3) as value`,
        [eventId, userId, JSON.stringify({ invoice_id: 'in_f1', attempt })],
      )
    expect(await fail('evt_f1', 1)).toBe('notified')
    expect(await fail('evt_f1', 1)).toBe('duplicate')
    expect(await fail('evt_f1_again', 1)).toBe('notified')
    expect(await fail('evt_f2', 2)).toBe('notified')
    expect((await outbox('payment_failed')).map((row) => row.data.attempt)).toEqual([1, 2])
    expect(await fail('evt_f_nouser', 3, null)).toBe('no_user')
  })

  it('cancel at period end, then the end: one notice each; repeats and stale events add none', async () => {
    const live = { stripe_subscription_id: 'sub_n', plan_name: 'Pro', status: 'active' }
    expect(await applySub('evt_s1', '2026-02-01T00:00:00Z', live)).toBe('applied')
    expect(await outbox()).toEqual([])
    const cancel = {
      ...live,
      cancel_at_period_end: true,
      current_period_end: '2026-03-01T00:00:00Z',
    }
    expect(await applySub('evt_s2', '2026-02-02T00:00:00Z', cancel)).toBe('applied')
    expect(await applySub('evt_s2', '2026-02-02T00:00:00Z', cancel)).toBe('duplicate')
    expect(await applySub('evt_s2b', '2026-02-02T00:00:01Z', cancel)).toBe('applied')
    const ended = { ...live, status: 'canceled' }
    expect(await applySub('evt_s3', '2026-03-01T00:00:00Z', ended)).toBe('applied')
    expect(await applySub('evt_s4', '2026-03-01T00:00:01Z', ended)).toBe('applied')
    const rows = await outbox()
    expect(rows.map((row) => row.kind)).toEqual(['subscription_canceled', 'subscription_ended'])
    expect(rows[0].data).toMatchObject({ plan_name: 'Pro', ends_at: '2026-03-01T00:00:00+00:00' })
  })

  it('a Polar subscription falling past due queues a payment-failed mail, once', async () => {
    const sub = { polar_subscription_id: 'p_sub', plan_name: 'Starter' }
    const polar = (eventId: string, at: string, status: string) =>
      applySub(eventId, at, { ...sub, status }, 'polar')
    await db.query(`delete from public.user_subscriptions where user_id = $1`, [user])
    expect(await polar('p1', '2026-05-01T00:00:00Z', 'active')).toBe('applied')
    expect(await polar('p2', '2026-05-02T00:00:00Z', 'past_due')).toBe('applied')
    expect(await polar('p3', '2026-05-02T00:00:01Z', 'past_due')).toBe('applied')
    expect((await outbox()).map((row) => [row.kind, row.data.provider])).toEqual([
      ['payment_failed', 'polar'],
    ])
  })

  it('a confirmed email change notifies the old and the new address, and queues the providers’ customers', async () => {
    await db.query(`update auth.users set email = 'outbox-new@example.com' where id = $1`, [user])
    await db.query(`update auth.users set last_sign_in_at = now() where id = $1`, [user])
    const rows = await outbox()
    expect(rows.map((row) => [row.kind, row.to_address]).sort()).toEqual([
      ['customer_email', 'outbox-new@example.com'],
      ['email_changed', 'outbox-new@example.com'],
      ['email_changed', email],
    ])
    expect((await outbox('customer_email'))[0].data).toEqual({
      old_email: email,
      new_email: 'outbox-new@example.com',
    })
    await db.query(`update auth.users set email = $2 where id = $1`, [user, email])
  })
})

describe('claiming and finishing', () => {
  beforeEach(() => db.query(`delete from public.notification_outbox`))

  async function queue(count: number) {
    for (let i = 0; i < count; i++)
      await db.query(`select public.enqueue_notification($1, 'password_changed', '{}')`, [user])
  }

  it('a claimed row is not claimed again while its lease runs; sent rows never again', async () => {
    await queue(1)
    const [first] = await claim()
    expect(first).toMatchObject({ attempts: 1, wanted: true, kind: 'password_changed' })
    expect(await claim()).toEqual([])
    expect(await finish(first.id, 1, 'sent')).toBe(true)
    await due('1 hour')
    expect(await claim()).toEqual([])
    expect((await outbox())[0]).toMatchObject({ status: 'sent', attempts: 1 })
  })

  it('a failure is retried at the given time; the last failure leaves the row dead and visible', async () => {
    await queue(1)
    const [row] = await claim()
    const later = new Date(Date.now() + 60_000).toISOString()
    expect(await finish(row.id, 1, 'failed', later, 'connect ECONNREFUSED')).toBe(true)
    expect(await claim()).toEqual([])
    await due()
    const [again] = await claim()
    expect(again.attempts).toBe(2)
    expect(await finish(again.id, 2, 'failed', undefined, 'still down')).toBe(true)
    expect((await outbox())[0]).toMatchObject({
      status: 'dead',
      attempts: 2,
      last_error: 'still down',
    })
    await due()
    expect(await claim()).toEqual([])
  })

  it('a report from a claim whose lease ran out (someone else claimed it) changes nothing', async () => {
    await queue(1)
    const [stale] = await claim(db, 10, 1)
    await due()
    const [current] = await claim()
    expect(await finish(stale.id, stale.attempts, 'sent')).toBe(false)
    expect(await finish(current.id, current.attempts, 'sent')).toBe(true)
  })

  it('the preference decides `wanted` at claim time', async () => {
    await queue(1)
    const notify = (on: boolean) =>
      db.query(`update public.user_profiles set notify_security = $2 where user_id = $1`, [
        user,
        on,
      ])
    await notify(false)
    const [row] = await claim()
    expect(row.wanted).toBe(false)
    expect(await finish(row.id, 1, 'skipped')).toBe(true)
    await notify(true)
  })

  it('two deliverers claiming at once get different rows', async () => {
    await queue(6)
    let claims: { id: string }[][]
    if (db.kind === 'postgres') {
      // A holds its claim's row locks open while B claims: B skips them instead of waiting.
      let releaseA!: () => void
      const aHolds = new Promise<void>((resolve) => (releaseA = resolve))
      let aClaimed!: (rows: { id: string }[]) => void
      const aRows = new Promise<{ id: string }[]>((resolve) => (aClaimed = resolve))
      const a = db.transaction(async (tx) => {
        aClaimed(await claim(tx, 3))
        await aHolds
      })
      const first = await aRows
      // Without SKIP LOCKED, B would wait for A's locks: give up after 2 s instead of hanging.
      const second = await db
        .transaction((tx) => claim(tx, 10), { settings: { lock_timeout: '2s' } })
        .finally(releaseA)
      await a
      claims = [first, second]
    } else {
      claims = await Promise.all([claim(db, 3), claim(db, 10)])
    }
    const ids = claims.flat().map((row) => row.id)
    expect(claims[0]).toHaveLength(3)
    expect(claims[1]).toHaveLength(3)
    expect(new Set(ids).size).toBe(6)
  })
})

describe('the notice when an account’s guessing ceiling is reached', () => {
  beforeEach(() => db.query(`delete from public.notification_outbox`))

  const notice = (address: string, flow: string) =>
    value<boolean>(
      db,
      `select public.enqueue_attempts_notice($1, $2, '{"minutes": 15}') as value`,
      [address, flow],
    )

  it('is queued for the account with that address (any case, spaces around), under security', async () => {
    expect(await notice('  OutBox@Example.com ', 'sign-in')).toBe(true)
    expect(await outbox('attempts_limited')).toEqual([
      expect.objectContaining({
        to_address: email,
        status: 'pending',
        category: 'security',
        data: { flow: 'sign-in', minutes: 15 },
      }),
    ])
  })

  it('queues nothing for an address without an account, and refuses an unknown flow', async () => {
    expect(await notice('nobody@example.com', 'email-code')).toBe(false)
    expect(await outbox()).toEqual([])
    await expect(notice(email, 'contact')).rejects.toThrow(/unknown flow/)
  })
})
