import { randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { asRole, createTestDatabase, newUser, recordPayment, value } from '../setup/database'

// The number of payments of each user, kept by a trigger, is the billing page's "page x of y"
// (`billing_overview`), so it must always equal the rows.

const user = randomUUID()
const other = randomUUID()

async function total(userId: string) {
  const sql = 'select (select total from public.payment_totals where user_id = $1) as value'
  return value<number | null>(db, sql, [userId])
}

async function counted(userId: string) {
  const sql = 'select count(*)::int as value from public.payment_history where user_id = $1'
  return value<number>(db, sql, [userId])
}

const overview = (userId: string) =>
  asRole(db, 'authenticated', userId, async (tx) => {
    return value<{ total: number; page: number }>(
      tx,
      'select public.billing_overview(1, 10) as value',
    )
  })

const pay = (eventId: string, userId: string, invoice: string) =>
  recordPayment(db, 'stripe', eventId, {
    user_id: userId,
    provider: 'stripe',
    provider_payment_id: invoice,
    amount: 1900,
    currency: 'usd',
    status: 'succeeded',
  })

const db = await createTestDatabase()
beforeAll(async () => {
  await newUser(db, 'totals@example.com', user)
  await newUser(db, 'other@example.com', other)
})
afterAll(() => db.close())

describe('payment_totals', () => {
  it('counts each new payment once; a duplicate event adds nothing', async () => {
    expect(await total(user)).toBeNull()
    expect((await overview(user)).total).toBe(0)
    for (let index = 0; index < 12; index++) await pay(`evt_t${index}`, user, `in_t${index}`)
    await pay('evt_t0', user, 'in_t0')
    await pay('evt_other', other, 'in_other')
    expect(await total(user)).toBe(12)
    expect(await counted(user)).toBe(12)
    expect(await overview(user)).toMatchObject({ total: 12, page: 1 })
    expect(await total(other)).toBe(1)
  })

  it('follows deletions and a payment moved to another user', async () => {
    await db.query(`delete from public.payment_history where provider_payment_id = 'in_t11'`)
    await db.query(
      `update public.payment_history set user_id = $1 where provider_payment_id = 'in_t10'`,
      [other],
    )
    expect([await total(user), await counted(user)]).toEqual([10, 10])
    expect([await total(other), await counted(other)]).toEqual([2, 2])
  })

  it("goes with the user's account", async () => {
    await db.query('delete from auth.users where id = $1', [other])
    expect(await total(other)).toBeNull()
  })
})
