import { randomUUID } from 'node:crypto'

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import type { Queryable } from '../local-stack/database'
import { createTestDatabase } from '../setup/database'

/**
 * The notification outbox (supabase/migrations/…_outbox_and_mails.sql): rows written in the same
 * transaction as the event that causes them, one per cause, and the claim / finish protocol
 * the deliverer uses (skip locked, attempts, retry, dead). Runs on PGlite and, with
 * DATABASE_URL, on the PostgreSQL server (where concurrent claims really are concurrent).
 */
const user = randomUUID()
const email = 'outbox@example.com'

interface OutboxRow {
  id: string
  kind: string
  to_address: string
  data: Record<string, unknown>
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

function recordPayment(q: Queryable, eventId: string, payment: Record<string, unknown>) {
  return q.query<{ result: string }>(
    `select public.record_payment_event('stripe', $1, 'invoice.payment_succeeded', now(), $2) as result`,
    [eventId, JSON.stringify({ user_id: user, provider: 'stripe', currency: 'usd', ...payment })],
  )
}

async function applySub(eventId: string, at: string, fields: object, provider = 'stripe') {
  const { rows } = await db.query<{ result: string }>(
    `select public.apply_subscription_event($5, $1, 'customer.subscription.updated', $2, $3, $4) as result`,
    [eventId, at, user, JSON.stringify({ provider, ...fields }), provider],
  )
  return rows[0].result
}

async function claim(q: Queryable = db, limit = 10, leaseSeconds = 60) {
  const { rows } = await q.query<{ id: string; attempts: number; wanted: boolean; kind: string }>(
    `select * from public.claim_notifications($1, $2)`,
    [limit, leaseSeconds],
  )
  return rows
}

async function finish(
  id: string,
  attempt: number,
  outcome: string,
  retryAt: string | null = null,
  error: string | null = null,
) {
  const { rows } = await db.query<{ ok: boolean }>(
    `select public.finish_notification($1, $2, $3, $4, $5) as ok`,
    [id, attempt, outcome, error, retryAt],
  )
  return rows[0].ok
}

const db = await createTestDatabase()
beforeAll(async () => {
  await db.query(`insert into auth.users (id, email) values ($1, $2)`, [user, email])
})
afterAll(() => db.close())

describe('enqueued with the event, in its transaction', () => {
  beforeEach(() => db.query(`delete from public.notification_outbox`))

  it('a recorded payment queues its receipt; the duplicate event queues nothing', async () => {
    const payment = { provider_payment_id: 'in_r1', amount: 1900, status: 'paid' }
    expect((await recordPayment(db, 'evt_r1', payment)).rows[0].result).toBe('applied')
    expect((await recordPayment(db, 'evt_r1', payment)).rows[0].result).toBe('duplicate')
    expect((await recordPayment(db, 'evt_r1b', payment)).rows[0].result).toBe('exists')
    const rows = await outbox()
    expect(rows).toHaveLength(1)
    const { rows: payments } = await db.query<{ id: string }>(
      `select id from public.payment_history where provider_payment_id = 'in_r1'`,
    )
    expect(rows[0]).toMatchObject({
      kind: 'payment_receipt',
      to_address: email,
      status: 'pending',
      attempts: 0,
      data: { payment_id: payments[0].id },
    })
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
    const fail = (eventId: string, attempt: number) =>
      db.query<{ result: string }>(
        `select public.record_payment_failure('stripe', $1, 'invoice.payment_failed', now(), $2, $3) as result`,
        [eventId, user, JSON.stringify({ invoice_id: 'in_f1', attempt })],
      )
    expect((await fail('evt_f1', 1)).rows[0].result).toBe('notified')
    expect((await fail('evt_f1', 1)).rows[0].result).toBe('duplicate')
    expect((await fail('evt_f1_again', 1)).rows[0].result).toBe('notified')
    expect((await fail('evt_f2', 2)).rows[0].result).toBe('notified')
    expect((await outbox('payment_failed')).map((row) => row.data.attempt)).toEqual([1, 2])
    const { rows } = await db.query<{ result: string }>(
      `select public.record_payment_failure('stripe', 'evt_f_nouser', 'invoice.payment_failed', now(), null, '{}') as result`,
    )
    expect(rows[0].result).toBe('no_user')
  })

  it('cancel at period end, then the end: one notice each; repeats and stale events add none', async () => {
    const live = { stripe_subscription_id: 'sub_n', plan_name: 'Pro' }
    expect(await applySub('evt_s1', '2026-02-01T00:00:00Z', { ...live, status: 'active' })).toBe(
      'applied',
    )
    expect(await outbox()).toEqual([])
    const cancel = {
      ...live,
      status: 'active',
      cancel_at_period_end: true,
      current_period_end: '2026-03-01T00:00:00Z',
    }
    expect(await applySub('evt_s2', '2026-02-02T00:00:00Z', cancel)).toBe('applied')
    expect(await applySub('evt_s2', '2026-02-02T00:00:00Z', cancel)).toBe('duplicate')
    expect(await applySub('evt_s2b', '2026-02-02T00:00:01Z', cancel)).toBe('applied')
    expect(await applySub('evt_s3', '2026-03-01T00:00:00Z', { ...live, status: 'canceled' })).toBe(
      'applied',
    )
    expect(await applySub('evt_s4', '2026-03-01T00:00:01Z', { ...live, status: 'canceled' })).toBe(
      'applied',
    )
    const rows = await outbox()
    expect(rows.map((row) => row.kind)).toEqual(['subscription_canceled', 'subscription_ended'])
    expect(rows[0].data).toMatchObject({ plan_name: 'Pro', ends_at: '2026-03-01T00:00:00+00:00' })
  })

  it('a Polar subscription falling past due queues a payment-failed mail, once', async () => {
    const polar = (eventId: string, at: string, status: string) =>
      applySub(
        eventId,
        at,
        { polar_subscription_id: 'p_sub', plan_name: 'Starter', status },
        'polar',
      )
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
    await db.query(
      `update public.notification_outbox set next_attempt_at = now() - interval '1 hour'`,
    )
    expect(await claim()).toEqual([])
    expect((await outbox())[0]).toMatchObject({ status: 'sent', attempts: 1 })
  })

  it('a failure is retried at the given time; the last failure leaves the row dead and visible', async () => {
    await queue(1)
    const [row] = await claim()
    const later = new Date(Date.now() + 60_000).toISOString()
    expect(await finish(row.id, 1, 'failed', later, 'connect ECONNREFUSED')).toBe(true)
    expect(await claim()).toEqual([])
    await db.query(`update public.notification_outbox set next_attempt_at = now()`)
    const [again] = await claim()
    expect(again.attempts).toBe(2)
    expect(await finish(again.id, 2, 'failed', null, 'still down')).toBe(true)
    expect((await outbox())[0]).toMatchObject({
      status: 'dead',
      attempts: 2,
      last_error: 'still down',
    })
    await db.query(`update public.notification_outbox set next_attempt_at = now()`)
    expect(await claim()).toEqual([])
  })

  it('a report from a claim whose lease ran out (someone else claimed it) changes nothing', async () => {
    await queue(1)
    const [stale] = await claim(db, 10, 1)
    await db.query(`update public.notification_outbox set next_attempt_at = now()`)
    const [current] = await claim()
    expect(await finish(stale.id, stale.attempts, 'sent')).toBe(false)
    expect(await finish(current.id, current.attempts, 'sent')).toBe(true)
  })

  it('the preference decides `wanted` at claim time', async () => {
    await queue(1)
    await db.query(`update public.user_profiles set notify_security = false where user_id = $1`, [
      user,
    ])
    const [row] = await claim()
    expect(row.wanted).toBe(false)
    expect(await finish(row.id, 1, 'skipped')).toBe(true)
    await db.query(`update public.user_profiles set notify_security = true where user_id = $1`, [
      user,
    ])
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
    db.query<{ queued: boolean }>(
      `select public.enqueue_attempts_notice($1, $2, '{"minutes": 15}') as queued`,
      [address, flow],
    )

  it('is queued for the account with that address (any case, spaces around), under security', async () => {
    const { rows } = await notice('  OutBox@Example.com ', 'sign-in')
    expect(rows[0].queued).toBe(true)
    const queued = await outbox('attempts_limited')
    expect(queued).toHaveLength(1)
    expect(queued[0]).toMatchObject({
      to_address: email,
      status: 'pending',
      data: { flow: 'sign-in', minutes: 15 },
    })
    const { rows: category } = await db.query<{ category: string }>(
      `select category from public.notification_outbox where id = $1`,
      [queued[0].id],
    )
    expect(category[0].category).toBe('security')
  })

  it('queues nothing for an address without an account, and refuses an unknown flow', async () => {
    expect((await notice('nobody@example.com', 'email-code')).rows[0].queued).toBe(false)
    expect(await outbox()).toEqual([])
    await expect(notice(email, 'contact')).rejects.toThrow(/unknown flow/)
  })
})
