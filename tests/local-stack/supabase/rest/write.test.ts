import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Database } from '../../database'
import { createTestDatabase } from '../../testing/database'
import { LOCAL_SERVICE_ROLE_KEY } from '../keys'
import { createRestHandler } from './handler'
import { restTestKit } from './testing'

let db: Database
let kit: ReturnType<typeof restTestKit>
let userId: string

beforeAll(async () => {
  db = await createTestDatabase()
  kit = restTestKit(db)
  userId = (await kit.createUser('writer@example.com')).id
})
afterAll(() => db.close())

describe('insert', () => {
  it('inserts arrays; a key missing from a row is null, not the default', async () => {
    const product = (id: string, extra: object = {}) => ({
      stripe_price_id: id,
      stripe_product_id: 'prod_1',
      plan_key: 'pro',
      name: 'Pro',
      amount: 1000,
      currency: 'usd',
      billing_interval: 'month',
      ...extra,
    })
    const withNulls = await kit.service
      .from('stripe_products')
      .insert([product('price_c', { active: false }), product('price_d')])
    expect(withNulls.status).toBe(400)
    expect(withNulls.error?.code).toBe('23502')
    const { rows } = await db.query(
      `select 1 from public.stripe_products where stripe_price_id in ('price_c', 'price_d')`,
    )
    expect(rows).toHaveLength(0)
  })

  it('rolls back a write whose singular representation has the wrong cardinality', async () => {
    const events = [
      { provider: 'stripe', event_id: 'evt_single_1', event_type: 'x' },
      { provider: 'stripe', event_id: 'evt_single_2', event_type: 'x' },
    ]
    const { error, status } = await kit.service
      .from('webhook_events')
      .insert(events)
      .select()
      .single()
    expect(status).toBe(406)
    expect(error?.details).toBe('The result contains 2 rows')
    const { rows } = await db.query(
      `select 1 from public.webhook_events where event_id like 'evt_single_%'`,
    )
    expect(rows).toHaveLength(0)
  })
})

const PAYMENT = {
  provider: 'stripe',
  provider_payment_id: 'in_1',
  amount: 100,
  currency: 'usd',
  status: 'paid',
}
const EVENT = { provider: 'stripe', event_id: 'evt_409', event_type: 'x' }

/** A raw answer as supabase-js gives one: its status and error body. */
async function answer(sent: Promise<Response>) {
  const response = await sent
  return { status: response.status, error: await response.json() }
}

describe('errors in PostgREST shape', () => {
  it.each<[string, () => PromiseLike<{ status: number; error: unknown }>, number, object]>([
    [
      'a duplicate key',
      async () => {
        await kit.service.from('webhook_events').insert(EVENT)
        return kit.service.from('webhook_events').insert(EVENT)
      },
      409,
      {
        code: '23505',
        details: 'Key (provider, event_id)=(stripe, evt_409) already exists.',
        hint: null,
        message: 'duplicate key value violates unique constraint "webhook_events_pkey"',
      },
    ],
    [
      'a foreign key',
      () =>
        kit.service
          .from('payment_history')
          .insert({ ...PAYMENT, user_id: '00000000-0000-0000-0000-000000000000' }),
      409,
      { code: '23503' },
    ],
    [
      'a check constraint',
      () =>
        kit.service
          .from('payment_history')
          .insert({ ...PAYMENT, user_id: userId, currency: 'USD' }),
      400,
      { code: '23514' },
    ],
    [
      'a value of the wrong type',
      () => kit.service.from('payment_history').select('id').eq('user_id', 'not-a-uuid'),
      400,
      { code: '22P02' },
    ],
    [
      'an unknown table',
      () => kit.service.from('nope').select('*'),
      404,
      {
        code: 'PGRST205',
        details: null,
        hint: null,
        message: "Could not find the table 'public.nope' in the schema cache",
      },
    ],
    [
      'an unknown column read',
      () => kit.service.from('webhook_events').select('nope'),
      400,
      { code: '42703', message: 'column webhook_events.nope does not exist' },
    ],
    [
      'an unknown column filtered on',
      () => kit.service.from('webhook_events').select('*').eq('nope', 1),
      400,
      { code: '42703' },
    ],
    [
      'an unknown column written',
      () => kit.service.from('webhook_events').insert({ ...EVENT, event_id: 'e', nope: 1 }),
      400,
      {
        code: 'PGRST204',
        message: "Could not find the 'nope' column of 'webhook_events' in the schema cache",
      },
    ],
    [
      'an UPDATE without a filter (pg_safeupdate)',
      () => kit.service.from('webhook_events').update({ event_type: 'all' }),
      400,
      { message: 'UPDATE requires a WHERE clause' },
    ],
    [
      'a DELETE without a filter (pg_safeupdate)',
      () => kit.service.from('webhook_events').delete(),
      400,
      { code: '21000' },
    ],
    [
      'malformed JSON',
      () =>
        answer(
          kit.raw('/rest/v1/webhook_events', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: '{"provider":',
          }),
        ),
      400,
      { code: 'PGRST102', details: null, hint: null, message: 'Empty or invalid json' },
    ],
    [
      'an unsupported method',
      () => answer(kit.raw('/rest/v1/webhook_events', { method: 'PUT', body: '{}' })),
      405,
      { code: 'PGRST117' },
    ],
  ])('%s', async (_name, run, status, error) => {
    const answered = await run()
    expect(answered.status).toBe(status)
    expect(answered.error).toMatchObject(error)
  })

  it('never throws: a broken database becomes a 500 in PostgREST shape', async () => {
    const broken = await createTestDatabase()
    await broken.close()
    const handler = createRestHandler({ database: broken })
    const response = await handler(
      new Request('http://localhost/rest/v1/webhook_events', {
        headers: { apikey: LOCAL_SERVICE_ROLE_KEY },
      }),
    )
    expect(response.status).toBe(500)
    const body = await response.json()
    expect(Object.keys(body)).toEqual(['code', 'details', 'hint', 'message'])
  })
})
