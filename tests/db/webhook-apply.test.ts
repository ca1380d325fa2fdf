import { randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import {
  applySubscription,
  createTestDatabase,
  newUser,
  recordPayment,
  value,
} from '../setup/database'

/** The ledger functions that make webhook effects exactly-once and order-safe. */
const db = await createTestDatabase()
const user = randomUUID()
beforeAll(() => newUser(db, 'ledger@example.com', user))
afterAll(() => db.close())

const applySub = (
  eventId: string,
  at: string,
  fields: object,
  userId: string | null = user,
  provider = 'stripe',
) => applySubscription(db, provider, eventId, at, userId, fields)

/** An event about the Stripe subscription `subscription` that sets only its status. */
const stripeSub = (
  eventId: string,
  at: string,
  subscription: string,
  status: string,
  userId: string | null = user,
) => applySub(eventId, at, { stripe_subscription_id: subscription, status }, userId)

const row = async (userId = user) =>
  (
    await db.query<Record<string, unknown>>(
      `select * from public.user_subscriptions where user_id = $1`,
      [userId],
    )
  ).rows[0]

const owners = async (paymentId: string) =>
  (
    await db.query<{ user_id: string }>(
      `select user_id from public.payment_history where provider_payment_id = $1`,
      [paymentId],
    )
  ).rows.map((payment) => payment.user_id)

describe('apply_subscription_event', () => {
  it('applies once; a duplicate changes nothing', async () => {
    const fields = { provider: 'stripe', stripe_subscription_id: 'sub_1', status: 'active' }
    const at = '2026-01-01T00:00:10Z'
    expect(await applySub('evt_a', at, { ...fields, plan_name: 'Pro' })).toBe('applied')
    expect(await applySub('evt_a', at, { ...fields, plan_name: 'Changed' })).toBe('duplicate')
    expect((await row()).plan_name).toBe('Pro')
  })

  it('ignores an older event', async () => {
    expect(await stripeSub('evt_old', '2026-01-01T00:00:05Z', 'sub_1', 'incomplete')).toBe('stale')
    expect((await row()).status).toBe('active')
  })

  it('breaks same-second ties by lifecycle progress', async () => {
    const at = '2026-01-01T00:00:10Z'
    expect(await stripeSub('evt_same_1', at, 'sub_1', 'incomplete')).toBe('stale')
    expect(await stripeSub('evt_same_2', at, 'sub_1', 'canceled')).toBe('applied')
    expect((await row()).status).toBe('canceled')
  })

  it('keeps columns the event does not set', async () => {
    const fields = { stripe_subscription_id: 'sub_2', status: 'active', cancel_at_period_end: true }
    expect(await applySub('evt_b', '2026-01-01T00:01:00Z', fields)).toBe('applied')
    expect(await row()).toMatchObject({ plan_name: 'Pro', provider: 'stripe', ...fields })
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
    const at = '2026-01-01T00:00:00Z'
    // Money still moving for a user the event names who is gone: an account deleted since.
    expect(await applySub('evt_x', at, { status: 'active' }, stranger)).toBe('deleted_account')
    expect(await applySub('evt_z', at, { status: 'canceled' }, stranger)).toBe('no_user')
    expect(await applySub('evt_y', at, { status: 'active' }, null)).toBe('no_user')
    expect(await row(stranger)).toBeUndefined()
  })

  it('rolls the ledger back when the effect fails, so a retry applies it', async () => {
    const at = '2026-01-01T00:03:00Z'
    await expect(
      applySub('evt_bad', at, { status: 'active', current_period_end: 'not a date' }),
    ).rejects.toThrow()
    const { rows } = await db.query(
      `select 1 from public.webhook_events where event_id = 'evt_bad'`,
    )
    expect(rows).toHaveLength(0)
    expect(await applySub('evt_bad', at, { status: 'past_due' })).toBe('applied')
  })

  it('applies concurrent duplicates exactly once', async () => {
    const fields = { status: 'active', plan_name: 'Starter' }
    const results = await Promise.all(
      Array.from({ length: 8 }, () => applySub('evt_concurrent', '2026-01-01T00:04:00Z', fields)),
    )
    expect(results.sort()).toEqual(['applied', ...Array<string>(7).fill('duplicate')])
  })

  it('lets a new subscription replace an ended one within the same second', async () => {
    const at = '2026-01-01T00:05:00Z'
    expect(await stripeSub('evt_end', at, 'sub_2', 'canceled')).toBe('applied')
    expect(await stripeSub('evt_new', at, 'sub_3', 'active')).toBe('applied')
    expect(await row()).toMatchObject({ stripe_subscription_id: 'sub_3', status: 'active' })
    // ...but an event about the ended subscription in that second still cannot revive it.
    expect(await stripeSub('evt_old_sub', at, 'sub_2', 'incomplete')).not.toBe('applied')
  })
})

describe('record_payment_event', () => {
  const pay = (eventId: string, payment: { provider: string } & Record<string, unknown>) =>
    recordPayment(db, payment.provider, eventId, { user_id: user, currency: 'USD', ...payment })

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
    await newUser(db, 'holder@example.com', holder)
    await db.query(
      `insert into public.user_subscriptions (user_id, provider, stripe_customer_id, stripe_subscription_id)
       values ($1, 'stripe', 'cus_holder', 'sub_holder')`,
      [holder],
    )
  })
  const failure = (eventId: string, data: object, payment: object) =>
    value(
      db,
      `select public.record_payment_failure('stripe', $1, 'invoice.payment_failed',
         '2026-03-02T00:00:00Z', null, $2, $3) as value`,
      [eventId, JSON.stringify(data), JSON.stringify(payment)],
    )
  const invoice = { stripe_customer_id: 'cus_holder', provider: 'stripe', amount: 900 }

  it('a subscription event: the user holding the subscription; Polar never (its links are checked by the app)', async () => {
    const at = '2026-03-01T00:00:00Z'
    expect(await stripeSub('evt_find_1', at, 'sub_holder', 'active', null)).toBe('applied')
    expect((await row(holder)).status).toBe('active')
    expect(await stripeSub('evt_find_2', at, 'sub_nobody', 'active', null)).toBe('no_user')
    const polar = { polar_subscription_id: 'sub_holder', status: 'canceled' }
    expect(await applySub('m_find', at, polar, null, 'polar')).toBe('no_user')
    expect((await row(holder)).status).toBe('active')
  })

  it('an invoice paid or failed: the user holding the customer, the failure noted in the same call', async () => {
    const paid = { ...invoice, user_id: null, currency: 'usd', status: 'paid' }
    expect(
      await recordPayment(db, 'stripe', 'evt_find_3', {
        ...paid,
        provider_payment_id: 'in_holder_1',
      }),
    ).toBe('applied')
    expect(await owners('in_holder_1')).toEqual([holder])
    const data = { invoice_id: 'in_holder_2', retry_at: '2026-03-05T00:00:00Z' }
    const failed = {
      ...invoice,
      user_id: null,
      currency: 'usd',
      provider_payment_id: 'in_holder_2',
    }
    expect(await failure('evt_find_4', data, failed)).toBe('notified')
    expect(await row(holder)).toMatchObject({
      payment_failed_at: new Date('2026-03-02T00:00:00Z'),
      payment_retry_at: new Date('2026-03-05T00:00:00Z'),
    })
    const nobody = { stripe_customer_id: 'cus_nobody', provider_payment_id: 'in_x', amount: 1 }
    expect(await failure('evt_find_5', {}, nobody)).toBe('no_user')
  })
})

describe('a Polar order: the ledger call finds its user', () => {
  const holder = randomUUID()
  beforeAll(async () => {
    await newUser(db, 'order-holder@example.com', holder)
    await db.query(
      `insert into public.user_subscriptions (user_id, provider, polar_subscription_id)
       values ($1, 'polar', 'psub_holder')`,
      [holder],
    )
  })
  const order = (eventId: string, userId: string | null, subscription: string, id: string) =>
    recordPayment(db, 'polar', eventId, {
      provider: 'polar',
      amount: 900,
      currency: 'usd',
      status: 'succeeded',
      user_id: userId,
      polar_subscription_id: subscription,
      provider_payment_id: id,
    })

  it('the user holding its subscription, before the user the order names', async () => {
    expect(await order('m_order_1', null, 'psub_holder', 'o_holder_1')).toBe('applied')
    expect(await owners('o_holder_1')).toEqual([holder])
    expect(await order('m_order_2', user, 'psub_holder', 'o_holder_2')).toBe('applied')
    expect(await owners('o_holder_2')).toEqual([holder])
  })

  it('else the user the order names; else nobody, and the event is still recorded', async () => {
    expect(await order('m_order_3', user, 'psub_nobody', 'o_named')).toBe('applied')
    expect(await owners('o_named')).toEqual([user])
    expect(await order('m_order_4', null, 'psub_nobody', 'o_nobody')).toBe('no_user')
    expect(await owners('o_nobody')).toEqual([])
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
    const branching = /(p_provider\s*(=|<>)|case\s+p_provider)[^\n]*/g
    const branches = rows.map(({ name, source }) => [name, source.match(branching)])
    expect(branches).toEqual(rows.map(({ name }) => [name, null]))
  })
})
