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

describe('update and delete', () => {
  it('refuses UPDATE and DELETE without filters, like Supabase', async () => {
    const update = await kit.service.from('webhook_events').update({ event_type: 'all' })
    expect(update.status).toBe(400)
    expect(update.error?.message).toBe('UPDATE requires a WHERE clause')
    const remove = await kit.service.from('webhook_events').delete()
    expect(remove.error?.code).toBe('21000')
  })
})

describe('errors', () => {
  it('duplicate key is 409 23505 with the Postgres details', async () => {
    const row = { provider: 'stripe', event_id: 'evt_409', event_type: 'x' }
    await kit.service.from('webhook_events').insert(row)
    const { error, status } = await kit.service.from('webhook_events').insert(row)
    expect(status).toBe(409)
    expect(error).toEqual({
      code: '23505',
      details: 'Key (provider, event_id)=(stripe, evt_409) already exists.',
      hint: null,
      message: 'duplicate key value violates unique constraint "webhook_events_pkey"',
    })
  })

  it('foreign key is 409 23503, check violation 400 23514', async () => {
    const payment = {
      provider: 'stripe',
      provider_payment_id: 'in_1',
      amount: 100,
      currency: 'usd',
      status: 'paid',
    }
    const fk = await kit.service
      .from('payment_history')
      .insert({ ...payment, user_id: '00000000-0000-0000-0000-000000000000' })
    expect(fk.status).toBe(409)
    expect(fk.error?.code).toBe('23503')
    const check = await kit.service
      .from('payment_history')
      .insert({ ...payment, user_id: userId, currency: 'USD' })
    expect(check.status).toBe(400)
    expect(check.error?.code).toBe('23514')
    const uuid = await kit.service.from('payment_history').select('id').eq('user_id', 'not-a-uuid')
    expect(uuid.status).toBe(400)
    expect(uuid.error?.code).toBe('22P02')
  })

  it('unknown table is 404 PGRST205', async () => {
    const { error, status } = await kit.service.from('nope').select('*')
    expect(status).toBe(404)
    expect(error).toEqual({
      code: 'PGRST205',
      details: null,
      hint: null,
      message: "Could not find the table 'public.nope' in the schema cache",
    })
  })

  it('unknown columns are 400 (42703 when reading, PGRST204 when writing)', async () => {
    const select = await kit.service.from('webhook_events').select('nope')
    expect(select.status).toBe(400)
    expect(select.error).toMatchObject({
      code: '42703',
      message: 'column webhook_events.nope does not exist',
    })
    const filter = await kit.service.from('webhook_events').select('*').eq('nope', 1)
    expect(filter.error?.code).toBe('42703')
    const insert = await kit.service
      .from('webhook_events')
      .insert({ provider: 'stripe', event_id: 'e', event_type: 'x', nope: 1 })
    expect(insert.status).toBe(400)
    expect(insert.error).toMatchObject({
      code: 'PGRST204',
      message: "Could not find the 'nope' column of 'webhook_events' in the schema cache",
    })
  })

  it('malformed JSON is 400 PGRST102', async () => {
    const response = await kit.raw('/rest/v1/webhook_events', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"provider":',
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      code: 'PGRST102',
      details: null,
      hint: null,
      message: 'Empty or invalid json',
    })
  })

  it('answers unsupported methods with 405 PGRST117', async () => {
    const response = await kit.raw('/rest/v1/webhook_events', { method: 'PUT', body: '{}' })
    expect(response.status).toBe(405)
    expect((await response.json()).code).toBe('PGRST117')
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
