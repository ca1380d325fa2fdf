import { randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestDatabase } from '../setup/database'

/** The ledger functions that make webhook effects exactly-once and order-safe. */
const user = randomUUID()

async function applySub(
  eventId: string,
  at: string,
  fields: Record<string, unknown>,
  userId: string | null = user,
  provider = 'stripe',
) {
  const { rows } = await db.query<{ result: string }>(
    `select public.apply_subscription_event($5, $1, 'subscription.updated', $2, $3, $4) as result`,
    [eventId, at, userId, JSON.stringify(fields), provider],
  )
  return rows[0].result
}

/** An event about the Stripe subscription `subscription` that sets only its status. */
const stripeSub = (
  eventId: string,
  at: string,
  subscription: string,
  status: string,
  userId: string | null = user,
) => applySub(eventId, at, { stripe_subscription_id: subscription, status }, userId)

async function row() {
  const { rows } = await db.query<Record<string, unknown>>(
    `select * from public.user_subscriptions where user_id = $1`,
    [user],
  )
  return rows[0]
}

const db = await createTestDatabase()
beforeAll(async () => {
  await db.query(`insert into auth.users (id, email) values ($1, 'ledger@example.com')`, [user])
})
afterAll(() => db.close())

describe('apply_subscription_event', () => {
  it('applies once; a duplicate changes nothing', async () => {
    const fields = {
      provider: 'stripe',
      stripe_subscription_id: 'sub_1',
      status: 'active',
      plan_name: 'Pro',
    }
    expect(await applySub('evt_a', '2026-01-01T00:00:10Z', fields)).toBe('applied')
    expect(
      await applySub('evt_a', '2026-01-01T00:00:10Z', { ...fields, plan_name: 'Changed' }),
    ).toBe('duplicate')
    expect((await row()).plan_name).toBe('Pro')
  })

  it('ignores an older event', async () => {
    expect(await stripeSub('evt_old', '2026-01-01T00:00:05Z', 'sub_1', 'incomplete')).toBe('stale')
    expect((await row()).status).toBe('active')
  })

  it('breaks same-second ties by lifecycle progress', async () => {
    expect(await stripeSub('evt_same_1', '2026-01-01T00:00:10Z', 'sub_1', 'incomplete')).toBe(
      'stale',
    )
    expect(await stripeSub('evt_same_2', '2026-01-01T00:00:10Z', 'sub_1', 'canceled')).toBe(
      'applied',
    )
    expect((await row()).status).toBe('canceled')
  })

  it('keeps columns the event does not set', async () => {
    expect(
      await applySub('evt_b', '2026-01-01T00:01:00Z', {
        stripe_subscription_id: 'sub_2',
        status: 'active',
        cancel_at_period_end: true,
      }),
    ).toBe('applied')
    const current = await row()
    expect(current).toMatchObject({
      plan_name: 'Pro',
      provider: 'stripe',
      cancel_at_period_end: true,
      status: 'active',
    })
  })

  it('does not let a late event about a previous subscription end the live one', async () => {
    expect(await stripeSub('evt_prev', '2026-01-01T00:02:00Z', 'sub_1', 'canceled')).toBe(
      'superseded',
    )
    expect((await row()).stripe_subscription_id).toBe('sub_2')
  })

  it('does not let a subscription at another provider take the live row over', async () => {
    const polar = (id: string, status: string) =>
      applySub(
        id,
        '2026-01-01T00:02:30Z',
        { polar_subscription_id: 'psub_1', status },
        user,
        'polar',
      )
    expect(await polar('evt_polar_live', 'active')).toBe('duplicate_subscription')
    expect(await polar('evt_polar_end', 'canceled')).toBe('superseded')
    expect(await row()).toMatchObject({
      provider: 'stripe',
      stripe_subscription_id: 'sub_2',
      polar_subscription_id: null,
      status: 'active',
    })
  })

  it('records events for unknown users without writing a row', async () => {
    const stranger = randomUUID()
    // Money still moving for a user the event names who is gone: an account deleted since.
    expect(await applySub('evt_x', '2026-01-01T00:00:00Z', { status: 'active' }, stranger)).toBe(
      'deleted_account',
    )
    expect(await applySub('evt_z', '2026-01-01T00:00:00Z', { status: 'canceled' }, stranger)).toBe(
      'no_user',
    )
    expect(await applySub('evt_y', '2026-01-01T00:00:00Z', { status: 'active' }, null)).toBe(
      'no_user',
    )
    const { rows } = await db.query(`select 1 from public.user_subscriptions where user_id = $1`, [
      stranger,
    ])
    expect(rows).toHaveLength(0)
  })

  it('rolls the ledger back when the effect fails, so a retry applies it', async () => {
    await expect(
      applySub('evt_bad', '2026-01-01T00:03:00Z', {
        status: 'active',
        current_period_end: 'not a date',
      }),
    ).rejects.toThrow()
    const { rows } = await db.query(
      `select 1 from public.webhook_events where event_id = 'evt_bad'`,
    )
    expect(rows).toHaveLength(0)
    expect(await applySub('evt_bad', '2026-01-01T00:03:00Z', { status: 'past_due' })).toBe(
      'applied',
    )
  })

  it('applies concurrent duplicates exactly once', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        applySub('evt_concurrent', '2026-01-01T00:04:00Z', {
          status: 'active',
          plan_name: 'Starter',
        }),
      ),
    )
    expect(results.filter((result) => result === 'applied')).toHaveLength(1)
    expect(results.filter((result) => result === 'duplicate')).toHaveLength(7)
  })
  it('lets a new subscription replace an ended one within the same second', async () => {
    expect(await stripeSub('evt_end', '2026-01-01T00:05:00Z', 'sub_2', 'canceled')).toBe('applied')
    expect(await stripeSub('evt_new', '2026-01-01T00:05:00Z', 'sub_3', 'active')).toBe('applied')
    expect(await row()).toMatchObject({ stripe_subscription_id: 'sub_3', status: 'active' })
    // ...but an event about the ended subscription in that second still cannot revive it.
    expect(await stripeSub('evt_old_sub', '2026-01-01T00:05:00Z', 'sub_2', 'incomplete')).not.toBe(
      'applied',
    )
  })
})

describe('record_payment_event', () => {
  const pay = (eventId: string, payment: Record<string, unknown>) =>
    db
      .query<{ result: string }>(
        `select public.record_payment_event($1, $2, 'x', now(), $3) as result`,
        [payment.provider, eventId, JSON.stringify({ user_id: user, currency: 'USD', ...payment })],
      )
      .then((result) => result.rows[0].result)

  it('writes one row per Stripe invoice', async () => {
    const invoice = {
      provider: 'stripe',
      provider_payment_id: 'in_1',
      amount: 2900,
      status: 'paid',
    }
    expect(await pay('evt_p1', invoice)).toBe('applied')
    expect(await pay('evt_p1', invoice)).toBe('duplicate')
    expect(await pay('evt_p2', invoice)).toBe('exists')
    const { rows } = await db.query(
      `select amount, currency from public.payment_history where provider_payment_id = 'in_1'`,
    )
    expect(rows).toEqual([{ amount: 2900, currency: 'usd' }])
  })

  it('keeps a Polar payment and its refund, updating the refund to the refunded total', async () => {
    const order = (eventId: string, amount: number, status: string) =>
      pay(eventId, { provider: 'polar', provider_payment_id: 'o1', amount, status })
    expect(await order('m1', 900, 'succeeded')).toBe('applied')
    expect(await order('m2', -300, 'refunded')).toBe('applied')
    expect(await order('m3', -900, 'refunded')).toBe('applied')
    expect(await order('m4', -900, 'refunded')).toBe('exists')
    const { rows } = await db.query(
      `select amount, status from public.payment_history where provider_payment_id = 'o1' order by amount desc`,
    )
    expect(rows).toEqual([
      { amount: 900, status: 'succeeded' },
      { amount: -900, status: 'refunded' },
    ])
  })

  it('names a payment for a user who is gone (an account deleted since); not its refund', async () => {
    const gone = { provider: 'polar', user_id: randomUUID(), provider_payment_id: 'o_gone' }
    expect(await pay('m_gone_1', { ...gone, amount: 900, status: 'succeeded' })).toBe(
      'deleted_account',
    )
    expect(await pay('m_gone_2', { ...gone, amount: -900, status: 'refunded' })).toBe('no_user')
  })
})

describe('a Stripe event that names no user: the ledger call finds it', () => {
  const holder = randomUUID()
  beforeAll(async () => {
    await db.query(`insert into auth.users (id, email) values ($1, 'holder@example.com')`, [holder])
    await db.query(
      `insert into public.user_subscriptions (user_id, provider, stripe_customer_id, stripe_subscription_id)
       values ($1, 'stripe', 'cus_holder', 'sub_holder')`,
      [holder],
    )
  })
  const holderRow = async () =>
    (
      await db.query<{ status: string; failed: Date | null; retry: Date | null }>(
        `select status, payment_failed_at as failed, payment_retry_at as retry
           from public.user_subscriptions where user_id = $1`,
        [holder],
      )
    ).rows[0]

  it('a subscription event: the user holding the subscription; Polar never (its links are checked by the app)', async () => {
    expect(
      await stripeSub('evt_find_1', '2026-03-01T00:00:00Z', 'sub_holder', 'active', null),
    ).toBe('applied')
    expect((await holderRow()).status).toBe('active')
    expect(
      await stripeSub('evt_find_2', '2026-03-01T00:00:01Z', 'sub_nobody', 'active', null),
    ).toBe('no_user')
    const { rows } = await db.query<{ result: string }>(
      `select public.apply_subscription_event('polar', 'm_find', 'subscription.updated', now(), null, $1) as result`,
      [JSON.stringify({ polar_subscription_id: 'sub_holder', status: 'canceled' })],
    )
    expect(rows[0].result).toBe('no_user')
    expect((await holderRow()).status).toBe('active')
  })

  it('an invoice paid or failed: the user holding the customer, the failure noted in the same call', async () => {
    const { rows: paid } = await db.query<{ result: string }>(
      `select public.record_payment_event('stripe', 'evt_find_3', 'invoice.payment_succeeded', now(), $1) as result`,
      [
        JSON.stringify({
          user_id: null,
          stripe_customer_id: 'cus_holder',
          provider: 'stripe',
          provider_payment_id: 'in_holder_1',
          amount: 900,
          currency: 'usd',
          status: 'paid',
        }),
      ],
    )
    expect(paid[0].result).toBe('applied')
    const { rows: owner } = await db.query(
      `select user_id from public.payment_history where provider_payment_id = 'in_holder_1'`,
    )
    expect(owner).toEqual([{ user_id: holder }])

    const { rows: failed } = await db.query<{ result: string }>(
      `select public.record_payment_failure('stripe', 'evt_find_4', 'invoice.payment_failed',
         '2026-03-02T00:00:00Z', null, $1, $2) as result`,
      [
        JSON.stringify({ invoice_id: 'in_holder_2', retry_at: '2026-03-05T00:00:00Z' }),
        JSON.stringify({
          user_id: null,
          stripe_customer_id: 'cus_holder',
          provider: 'stripe',
          provider_payment_id: 'in_holder_2',
          amount: 900,
          currency: 'usd',
        }),
      ],
    )
    expect(failed[0].result).toBe('notified')
    const row = await holderRow()
    expect(new Date(row.failed!).toISOString()).toBe('2026-03-02T00:00:00.000Z')
    expect(new Date(row.retry!).toISOString()).toBe('2026-03-05T00:00:00.000Z')
    const { rows: nobody } = await db.query<{ result: string }>(
      `select public.record_payment_failure('stripe', 'evt_find_5', 'invoice.payment_failed',
         now(), null, '{}', $1) as result`,
      [
        JSON.stringify({
          stripe_customer_id: 'cus_nobody',
          provider_payment_id: 'in_x',
          amount: 1,
        }),
      ],
    )
    expect(nobody[0].result).toBe('no_user')
  })
})

describe('a Polar order: the ledger call finds its user', () => {
  const holder = randomUUID()
  beforeAll(async () => {
    await db.query(`insert into auth.users (id, email) values ($1, 'order-holder@example.com')`, [
      holder,
    ])
    await db.query(
      `insert into public.user_subscriptions (user_id, provider, polar_subscription_id)
       values ($1, 'polar', 'psub_holder')`,
      [holder],
    )
  })
  const order = (eventId: string, userId: string | null, subscription: string, id: string) =>
    db
      .query<{ result: string }>(
        `select public.record_payment_event('polar', $1, 'order.paid', now(), $2) as result`,
        [
          eventId,
          JSON.stringify({
            provider: 'polar',
            amount: 900,
            currency: 'usd',
            status: 'succeeded',
            user_id: userId,
            polar_subscription_id: subscription,
            provider_payment_id: id,
          }),
        ],
      )
      .then((result) => result.rows[0].result)
  const ownerOf = async (orderId: string) =>
    (
      await db.query<{ user_id: string }>(
        `select user_id from public.payment_history where provider_payment_id = $1`,
        [orderId],
      )
    ).rows.map((row) => row.user_id)

  it('the user holding its subscription, before the user the order names', async () => {
    expect(await order('m_order_1', null, 'psub_holder', 'o_holder_1')).toBe('applied')
    expect(await ownerOf('o_holder_1')).toEqual([holder])
    expect(await order('m_order_2', user, 'psub_holder', 'o_holder_2')).toBe('applied')
    expect(await ownerOf('o_holder_2')).toEqual([holder])
  })

  it('else the user the order names; else nobody, and the event is still recorded', async () => {
    expect(await order('m_order_3', user, 'psub_nobody', 'o_named')).toBe('applied')
    expect(await ownerOf('o_named')).toEqual([user])
    expect(await order('m_order_4', null, 'psub_nobody', 'o_nobody')).toBe('no_user')
    expect(await ownerOf('o_nobody')).toEqual([])
    expect(await order('m_order_4', null, 'psub_holder', 'o_nobody')).toBe('duplicate')
  })
})

describe('the ledger functions and the providers', () => {
  it('branch on no provider: where providers differ, billing_provider_rules says how', async () => {
    const { rows } = await db.query<{ name: string; source: string }>(
      `select proname as name, prosrc as source from pg_proc
       where pronamespace = 'public'::regnamespace
         and proname in ('apply_subscription_event', 'record_payment_event', 'record_payment_failure')`,
    )
    expect(rows).toHaveLength(3)
    for (const { name, source } of rows)
      expect({
        name,
        branches: source.match(/(p_provider\s*(=|<>)|case\s+p_provider)[^\n]*/g),
      }).toEqual({
        name,
        branches: null,
      })
  })
})
