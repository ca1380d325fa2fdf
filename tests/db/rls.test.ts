import { randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Queryable } from '../local-stack/database'
import { asRole, createTestDatabase, value } from '../setup/database'

// Row-level security, proven by running SQL as each API role with real JWT claims.
const alice = randomUUID()
const bob = randomUUID()

const as = <T>(
  role: 'authenticated' | 'service_role',
  userId: string | null,
  fn: (tx: Queryable) => Promise<T>,
) => asRole(db, role, userId, fn)
/** A row of payment_history, as the ledger writes it. */
const insertPayment = (
  q: Queryable,
  userId: string,
  provider: string,
  id: string,
  amount = 2900,
  status = 'paid',
) =>
  q.query(
    `insert into public.payment_history (user_id, provider, provider_payment_id, amount, currency, status)
     values ($1, $2, $3, $4, 'usd', $5)`,
    [userId, provider, id, amount, status],
  )

async function seed() {
  for (const [id, email] of [
    [alice, 'alice@example.com'],
    [bob, 'bob@example.com'],
  ]) {
    await db.query(`insert into auth.users (id, email, raw_user_meta_data) values ($1, $2, $3)`, [
      id,
      email,
      JSON.stringify({ full_name: email.split('@')[0] }),
    ])
    await db.query(
      `insert into public.user_subscriptions (user_id, provider, status, plan_name) values ($1, 'stripe', 'active', 'Pro')`,
      [id],
    )
    await insertPayment(db, id, 'stripe', `in_${id}`)
  }
  await db.query(
    `insert into public.webhook_events (provider, event_id, event_type) values ('stripe', 'evt_1', 'x')`,
  )
  await db.query(
    `insert into public.stripe_products (stripe_price_id, stripe_product_id, plan_key, name, amount, currency, billing_interval)
     values ('price_1', 'prod_1', 'pro', 'Pro', 2900, 'usd', 'month')`,
  )
}

const USER_TABLES = ['user_subscriptions', 'payment_history', 'payment_totals', 'user_profiles']
const asAlice = (sql: string, params: unknown[] = []) =>
  as('authenticated', alice, (tx) => tx.query<Record<string, unknown>>(sql, params))

const db = await createTestDatabase()
beforeAll(async () => {
  await seed()
})
afterAll(() => db.close())

describe('a signed-in user', () => {
  it.each(USER_TABLES)('sees only their own rows in %s', async (table) => {
    const { rows } = await asAlice(`select user_id from public.${table}`)
    expect(rows.map((row) => row.user_id)).toEqual([alice])
  })

  it('cannot read another user profile even by id', async () => {
    const { rows } = await asAlice(`select * from public.user_profiles where user_id = $1`, [bob])
    expect(rows).toHaveLength(0)
  })

  it('gets a profile created on sign-up, named from the metadata, product updates off until opted in', async () => {
    const { rows } = await asAlice(
      `select display_name, notify_product_updates, notify_billing, notify_security from public.user_profiles`,
    )
    expect(rows).toEqual([
      {
        display_name: 'alice',
        notify_product_updates: false,
        notify_billing: true,
        notify_security: true,
      },
    ])
  })

  it('can update their own profile but not another one', async () => {
    const rename = (name: string, userId: string) =>
      asAlice(`update public.user_profiles set display_name = $1 where user_id = $2`, [
        name,
        userId,
      ])
    expect((await rename('Alice A', alice)).affectedRows).toBe(1)
    expect((await rename('hacked', bob)).affectedRows).toBe(0)
    const name = `select display_name as value from public.user_profiles where user_id = $1`
    expect(await value(db, name, [bob])).toBe('bob')
  })
})

describe('service role', () => {
  it('sees every row', async () => {
    const tables = ['user_subscriptions', 'payment_history', 'user_profiles', 'webhook_events']
    const counts = await as('service_role', null, async (tx) => {
      const count = async (table: string) =>
        (await tx.query(`select 1 from public.${table}`)).rows.length
      return Promise.all([...tables, 'stripe_products'].map(count))
    })
    expect(counts).toEqual([2, 2, 2, 1, 1])
  })

  it('writes subscriptions, payments and the ledger', async () => {
    await as('service_role', null, async (tx) => {
      await tx.query(
        `update public.user_subscriptions set status = 'past_due' where user_id = $1`,
        [alice],
      )
      await insertPayment(tx, alice, 'stripe', 'in_service', 100)
      await tx.query(
        `insert into public.webhook_events (provider, event_id, event_type) values ('polar', 'msg_1', 'order.paid')`,
      )
    })
    const status = `select status as value from public.user_subscriptions where user_id = $1`
    expect(await value(db, status, [alice])).toBe('past_due')
  })
})

describe('payment_history uniqueness', () => {
  it('refuses a second row for the same Stripe invoice', async () => {
    await expect(insertPayment(db, alice, 'stripe', `in_${alice}`)).rejects.toThrow(/duplicate key/)
  })

  it('keeps a paid Polar order and its refund as two rows, but no duplicates of either', async () => {
    const insert = (status: string, amount: number) =>
      insertPayment(db, bob, 'polar', 'ord_1', amount, status)
    await insert('succeeded', 900)
    await insert('refunded', -900)
    await expect(insert('succeeded', 900)).rejects.toThrow(/duplicate key/)
    await expect(insert('refunded', -900)).rejects.toThrow(/duplicate key/)
  })
})

describe('profile-images storage', () => {
  const upload = (userId: string, name: string) =>
    as('authenticated', userId, (tx) =>
      tx.query(
        `insert into storage.objects (bucket_id, name, owner) values ('profile-images', $1, $2)`,
        [name, userId],
      ),
    )

  it('lets a user write under their own folder', async () => {
    await expect(upload(alice, `${alice}/avatar.png`)).resolves.toBeDefined()
  })

  it('refuses writes to another user folder or the bucket root', async () => {
    await expect(upload(alice, `${bob}/avatar.png`)).rejects.toThrow(/row-level security/)
    await expect(upload(alice, `avatar.png`)).rejects.toThrow(/row-level security/)
  })

  it('refuses deleting another user file', async () => {
    await db.query(
      `insert into storage.objects (bucket_id, name, owner) values ('profile-images', $1, $2)`,
      [`${bob}/a.png`, bob],
    )
    const result = await asAlice(`delete from storage.objects where name = $1`, [`${bob}/a.png`])
    expect(result.affectedRows).toBe(0)
  })
})

describe('billing_overview', () => {
  const overview = (userId: string) =>
    as('authenticated', userId, (tx) =>
      tx.query<{ overview: Record<string, unknown> }>(
        `select public.billing_overview(1, 10) as overview`,
      ),
    )

  it('gives a user their own subscription and payments only', async () => {
    const own = await db.query<{ id: string }>(
      `select id from public.payment_history where user_id = $1 order by created_at desc, id desc`,
      [alice],
    )
    const { rows } = await overview(alice)
    const result = rows[0].overview as { payments: { id: string }[] }
    expect(rows[0].overview).toMatchObject({
      subscription: { user_id: alice, plan_name: 'Pro' },
      total: own.rows.length,
      page: 1,
    })
    expect(result.payments.map((payment) => payment.id)).toEqual(own.rows.map((row) => row.id))
  })
})

describe('account_billing_overview', () => {
  const call = (userId: string) =>
    as('authenticated', userId, async (tx) => {
      const { rows } = await tx.query<{ both: unknown; summary: unknown; overview: unknown }>(
        `select public.account_billing_overview(1, 10) as both, public.account_summary() as summary,
                public.billing_overview(1, 10) as overview`,
      )
      return rows[0]
    })

  it("is the user's account summary and billing overview in one answer, their own rows only", async () => {
    const { both, summary, overview } = await call(alice)
    expect(both).toEqual({ ...(summary as object), ...(overview as object), plan_change: null })
    expect(Object.keys(both as object).sort()).toEqual([
      'page',
      'payments',
      'plan_change',
      'profile',
      'subscription',
      'total',
    ])
    expect(both).toMatchObject({ subscription: { user_id: alice }, page: 1 })
  })

  it("has this period's last plan change of the caller's own subscription only", async () => {
    await db.query(`update public.user_subscriptions set current_period_start = '2026-03-01'`)
    const change = (at: string) => ({
      old_plan: 'Starter',
      period_start: '2026-03-01',
      changed_at: at,
    })
    // Last period's change, then this period's: only the latter counts, and only for alice.
    for (const at of ['2026-02-20T10:00:00+00:00', '2026-03-05T10:00:00+00:00'])
      await db.query(
        `insert into public.notification_outbox (user_id, kind, category, to_address, data)
         values ($1, 'plan_changed', 'billing', 'alice@example.com', $2)`,
        [alice, { ...change(at), plan_name: 'Pro' }],
      )
    const planChange = async (user: string) =>
      ((await call(user)).both as { plan_change: unknown }).plan_change
    expect(await planChange(alice)).toEqual(change('2026-03-05T10:00:00+00:00'))
    expect(await planChange(bob)).toBeNull()
    await db.query(`delete from public.notification_outbox where kind = 'plan_changed'`)
    await db.query(`update public.user_subscriptions set current_period_start = null`)
  })
})

describe('account_settings_overview', () => {
  it("is the account summary with the caller's own sign-in details, and only theirs", async () => {
    const { rows } = await as('authenticated', alice, (tx) =>
      tx.query<{ both: Record<string, unknown>; summary: object }>(
        `select public.account_settings_overview() as both, public.account_summary() as summary`,
      ),
    )
    expect(rows[0].both).toEqual({
      ...rows[0].summary,
      account: {
        email: 'alice@example.com',
        pending_email: null,
        password: false,
        github: false,
        waiting_for: null,
      },
    })
  })
})
