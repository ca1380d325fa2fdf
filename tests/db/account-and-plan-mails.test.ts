import { randomUUID } from 'node:crypto'

import { afterAll, describe, expect, it } from 'vitest'

import { applySubscription, createTestDatabase, newUser as addUser } from '../setup/database'

// Mails about plan changes and resumes, and the one mail of a deleted account.
const db = await createTestDatabase()
afterAll(() => db.close())

async function newUser() {
  const id = randomUUID()
  const email = `mails-${id.slice(0, 8)}@example.com`
  await addUser(db, email, id)
  return { id, email }
}

const applySub = (userId: string, eventId: string, at: string, fields: object) =>
  applySubscription(db, 'stripe', eventId, at, userId, fields)

async function outboxOf(userId: string | null, email?: string) {
  const { rows } = await db.query<{
    kind: string
    user_id: string | null
    to_address: string
    data: Record<string, unknown>
  }>(
    `select kind, user_id, to_address, data from public.notification_outbox
     where ($1::uuid is not null and user_id = $1) or ($1::uuid is null and to_address = $2)
     order by created_at`,
    [userId, email ?? null],
  )
  return rows
}

const live = (userId: string) => ({
  provider: 'stripe',
  stripe_subscription_id: `sub_${userId.slice(0, 8)}`,
  plan_name: 'Starter',
  billing_cycle: 'month',
  status: 'active',
  current_period_end: '2026-04-01T00:00:00Z',
})

describe('plan changes and resumes', () => {
  it('a live subscription changing plan queues one mail naming both plans and the next charge', async () => {
    const user = await newUser()
    await applySub(user.id, `e1-${user.id}`, '2026-03-01T00:00:00Z', live(user.id))
    const pro = { ...live(user.id), plan_name: 'Pro' }
    await applySub(user.id, `e2-${user.id}`, '2026-03-02T00:00:00Z', pro)
    // The same plan again changes nothing.
    await applySub(user.id, `e3-${user.id}`, '2026-03-03T00:00:00Z', pro)
    const rows = await outboxOf(user.id)
    expect(rows.map((row) => row.kind)).toEqual(['plan_changed'])
    expect(rows[0].data).toMatchObject({
      old_plan: 'Starter',
      plan_name: 'Pro',
      billing_cycle: 'month',
      next_charge_at: '2026-04-01T00:00:00+00:00',
    })
  })

  it('a withdrawn cancellation queues "resumed" with the next charge', async () => {
    const user = await newUser()
    await applySub(user.id, `r1-${user.id}`, '2026-03-01T00:00:00Z', live(user.id))
    const canceling = (cancel_at_period_end: boolean) => ({
      ...live(user.id),
      cancel_at_period_end,
    })
    await applySub(user.id, `r2-${user.id}`, '2026-03-02T00:00:00Z', canceling(true))
    await applySub(user.id, `r3-${user.id}`, '2026-03-03T00:00:00Z', canceling(false))
    const rows = await outboxOf(user.id)
    expect(rows.map((row) => row.kind)).toEqual(['subscription_canceled', 'subscription_resumed'])
    expect(rows[1].data).toMatchObject({
      plan_name: 'Starter',
      next_charge_at: '2026-04-01T00:00:00+00:00',
    })
  })
})

describe('a deleted account', () => {
  it('gets one "account deleted" mail; nothing else is queued once its deletion started', async () => {
    const user = await newUser()
    await applySub(user.id, `d1-${user.id}`, '2026-03-01T00:00:00Z', live(user.id))
    await db.query(`select public.enqueue_notification($1, 'password_changed', '{}')`, [user.id])
    await db.query(
      `update auth.users set raw_app_meta_data = raw_app_meta_data || $2::jsonb where id = $1`,
      [
        user.id,
        JSON.stringify({ deletion_started_at: '2026-03-05T00:00:00Z', canceled_plan: 'Starter' }),
      ],
    )
    // The provider's cancellation arrives while the account is being deleted: no mail.
    const canceled = { ...live(user.id), status: 'canceled' }
    await applySub(user.id, `d2-${user.id}`, '2026-03-05T00:00:01Z', canceled)
    expect((await outboxOf(user.id)).map((row) => row.kind)).toEqual(['password_changed'])
    await db.query(`delete from auth.users where id = $1`, [user.id])
    const rows = await outboxOf(null, user.email)
    expect(rows).toEqual([
      {
        kind: 'account_deleted',
        user_id: null,
        to_address: user.email,
        data: expect.objectContaining({ canceled_plan: 'Starter' }) as unknown,
      },
    ])
    // Sent whatever the (deleted) preferences said.
    const { rows: claimed } = await db.query<{ kind: string; wanted: boolean }>(
      `select kind, wanted from public.claim_notifications(100, 60) where to_address = $1`,
      [user.email],
    )
    expect(claimed).toEqual([{ kind: 'account_deleted', wanted: true }])
  })

  it('a user removed without the deletion mark (an operator, a test) gets no mail', async () => {
    const user = await newUser()
    await db.query(`delete from auth.users where id = $1`, [user.id])
    expect(await outboxOf(null, user.email)).toEqual([])
  })
})
