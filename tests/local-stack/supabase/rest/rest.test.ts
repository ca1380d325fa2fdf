import type { SupabaseClient } from '@supabase/supabase-js'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { createTestDatabase } from '../../testing/database'
import { LOCAL_ANON_KEY, LOCAL_JWT_SECRET, LOCAL_SERVICE_ROLE_KEY, signAccessToken } from '../keys'
import { raw, startTestStack, type TestStack } from '../test-support'
import { createRestHandler } from './handler'

// What PostgREST answers that the product's suites (which drive the stand-in through
// supabase-js: eq, gt, not in, not is null among its filters) do not reach: the other filters'
// results, and its refusals in its error shape.
let stack: TestStack
let alice: { id: string; client: SupabaseClient }
const service = () => stack.admin()
const anon = () => stack.client()

beforeAll(async () => {
  stack = await startTestStack()
  await stack.db.exec(`
    create table public.items (
      id bigint primary key, name text not null, qty int, price numeric(10, 2),
      active boolean not null default true, created_at timestamptz not null);
    insert into public.items values
      (1, 'apple', 5, 1.50, true, '2026-01-01T00:00:00Z'),
      (2, 'banana', null, 0.25, true, '2026-01-02T00:00:00Z'),
      (3, 'carrot', 10, 0.40, false, '2026-01-03T00:00:00Z'),
      (4, 'a, b (special)', 1, null, true, '2026-01-04T00:00:00Z'),
      (9007199254740993, 'Dates', 7, 3.00, true, '2026-01-05T12:30:00.5Z');
    -- Nothing in public is granted by default (as on hosted Supabase): grant as a migration would.
    grant select on public.items to anon, authenticated, service_role;
    create function public.add_them(a int, b int) returns int language sql as $$ select a + b $$;
    create function public.items_between(lo int, hi int) returns setof public.items
      language sql stable as $$ select * from public.items where id between lo and hi $$;
    create function public.fail(status text) returns int language plpgsql as $$
      begin raise exception 'nope: %', status using errcode = status, hint = 'try again'; end $$;
    create function public.touch_items() returns int language sql
      as $$ update public.items set qty = qty returning 1 $$;`)
  const id = await stack.createUser('alice@example.com')
  alice = { id, client: (await stack.signIn('alice@example.com')).supabase }
  const subscription = await service()
    .from('user_subscriptions')
    .insert({ user_id: alice.id, provider: 'stripe', status: 'active' })
  expect(subscription.error).toBeNull()
})
afterAll(() => stack.close())

type Query = ReturnType<ReturnType<SupabaseClient['from']>['select']>
// Beyond Number.MAX_SAFE_INTEGER: JSON.parse rounds it the same way, the raw body keeps every digit.
const BIG = Number('9007199254740993')

describe('filters', () => {
  it.each([
    ['neq', (q: Query) => q.neq('active', true), [3]],
    ['gte', (q: Query) => q.gte('qty', 5), [1, 3, BIG]],
    ['lt', (q: Query) => q.lt('price', 0.4), [2]],
    ['lte', (q: Query) => q.lte('price', 0.4), [2, 3]],
    ['is null', (q: Query) => q.is('qty', null), [2]],
    ['is false', (q: Query) => q.is('active', false), [3]],
    ['in', (q: Query) => q.in('name', ['apple', 'a, b (special)', 'nope']), [1, 4]],
    ['empty in', (q: Query) => q.in('id', []), []],
    ['timestamp', (q: Query) => q.gte('created_at', '2026-01-04T00:00:00Z'), [4, BIG]],
    ['quotes', (q: Query) => q.eq('name', "x' or '1'='1"), []],
  ])('%s', async (_name, apply, expected) => {
    const { data, error } = await apply(service().from('items').select('id')).order('id')
    expect(error).toBeNull()
    expect((data as { id: number }[]).map((row) => row.id)).toEqual(expected)
  })
})

/** A raw answer as supabase-js gives one: its status and error body. */
async function answer(sent: Promise<Response>) {
  const response = await sent
  return { status: response.status, error: await response.json() }
}
const PAYMENT = { provider: 'stripe', provider_payment_id: 'in_1', amount: 100, currency: 'usd' }
const EVENT = { provider: 'stripe', event_id: 'evt_409', event_type: 'x' }
const signed = (role: string, secret = LOCAL_JWT_SECRET) =>
  new SignJWT({ role }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret))
const asBearer = async (token: string | Promise<string>) =>
  answer(rest('/rest/v1/items', { headers: { Authorization: `Bearer ${await token}` } }))
/** A raw request with the service-role key unless it names another. */
const rest = (path: string, init: RequestInit = {}) =>
  raw(stack.emulator, path, {
    ...init,
    headers: { apikey: LOCAL_SERVICE_ROLE_KEY, ...init.headers },
  })

describe('errors in PostgREST shape', () => {
  it.each<[string, () => PromiseLike<{ status: number; error: unknown }>, number, object]>([
    [
      'a duplicate key',
      async () => {
        await service().from('webhook_events').insert(EVENT)
        return service().from('webhook_events').insert(EVENT)
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
        service()
          .from('payment_history')
          .insert({ ...PAYMENT, status: 'paid', user_id: '00000000-0000-0000-0000-000000000000' }),
      409,
      { code: '23503' },
    ],
    [
      'a check constraint',
      () =>
        service()
          .from('payment_history')
          .insert({ ...PAYMENT, status: 'paid', user_id: alice.id, currency: 'USD' }),
      400,
      { code: '23514' },
    ],
    [
      'an unknown table',
      () => service().from('nope').select('*'),
      404,
      { code: 'PGRST205', message: "Could not find the table 'public.nope' in the schema cache" },
    ],
    [
      'an unknown column read',
      () => service().from('webhook_events').select('nope'),
      400,
      { code: '42703', message: 'column webhook_events.nope does not exist' },
    ],
    [
      'an unknown column written',
      () =>
        service()
          .from('webhook_events')
          .insert({ ...EVENT, event_id: 'e', nope: 1 }),
      400,
      {
        code: 'PGRST204',
        message: "Could not find the 'nope' column of 'webhook_events' in the schema cache",
      },
    ],
    [
      'an UPDATE without a filter (pg_safeupdate)',
      () => service().from('webhook_events').update({ event_type: 'all' }),
      400,
      { code: '21000', message: 'UPDATE requires a WHERE clause' },
    ],
    [
      'malformed JSON',
      () =>
        answer(
          rest('/rest/v1/webhook_events', {
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
      () => answer(rest('/rest/v1/webhook_events', { method: 'PUT', body: '{}' })),
      405,
      { code: 'PGRST117' },
    ],
    [
      'single with no row',
      () => service().from('items').select('id').eq('id', 42).single(),
      406,
      {
        code: 'PGRST116',
        details: 'The result contains 0 rows',
        hint: null,
        message: 'Cannot coerce the result to a single JSON object',
      },
    ],
    [
      'a schema other than public',
      () => service().schema('private').from('items').select('*'),
      406,
      {
        code: 'PGRST106',
        details: null,
        hint: 'Only the following schemas are exposed: public',
        message: 'Invalid schema: private',
      },
    ],
    [
      'a write in a read (GET runs read-only)',
      () => service().rpc('touch_items', {}, { get: true }),
      405,
      { code: '25006' },
    ],
    [
      'a filter on a function result',
      () => anon().rpc('items_between', { lo: 2, hi: 6 }).neq('id', 4),
      400,
      { code: 'PGRST100' },
    ],
    [
      'raise (P0001)',
      () => anon().rpc('fail', { status: 'P0001' }),
      400,
      { code: 'P0001', details: null, hint: 'try again', message: 'nope: P0001' },
    ],
    ['raise PTxyz: status xyz', () => anon().rpc('fail', { status: 'PT402' }), 402, {}],
    [
      'bad input to a function',
      () => anon().rpc('add_them', { a: 'x', b: 1 }),
      400,
      { code: '22P02' },
    ],
    [
      'a user writing a subscription (RLS): no row changes',
      async () => {
        const result = await alice.client
          .from('user_subscriptions')
          .upsert(
            { user_id: alice.id, status: 'active', plan_name: 'x' },
            { onConflict: 'user_id' },
          )
        const { rows } = await stack.db.query(
          'select plan_name from public.user_subscriptions where user_id = $1',
          [alice.id],
        )
        expect(rows).toEqual([{ plan_name: null }])
        return result
      },
      403,
      { code: '42501', message: 'permission denied for table user_subscriptions' },
    ],
    [
      'anon, to which no table in public is granted',
      () => anon().from('user_profiles').select('*'),
      401,
      { code: '42501', message: 'permission denied for table user_profiles' },
    ],
    [
      'no key at all: anon',
      () =>
        answer(
          createRestHandler({ database: stack.db })(
            new Request('http://127.0.0.1/rest/v1/user_subscriptions'),
          ),
        ),
      401,
      { code: '42501' },
    ],
    [
      'a JWT with a bad signature',
      () => asBearer(signed('service_role', `${LOCAL_JWT_SECRET}-not`)),
      401,
      { code: 'PGRST301', details: null, hint: null },
    ],
    ['a malformed JWT', () => asBearer('abc'), 401, { code: 'PGRST301' }],
    [
      'a role other than the API roles',
      () => asBearer(signed('postgres')),
      403,
      { message: 'permission denied to set role "postgres"' },
    ],
    [
      'a broken database: 500, never a throw',
      async () => {
        const broken = await createTestDatabase()
        await broken.close()
        const handler = createRestHandler({ database: broken })
        const request = new Request('http://localhost/rest/v1/items', {
          headers: { apikey: LOCAL_SERVICE_ROLE_KEY },
        })
        return answer(handler(request))
      },
      500,
      { code: expect.any(String), details: null, hint: null, message: expect.any(String) },
    ],
  ])('%s', async (_name, run, status, error) => {
    const answered = await run()
    expect(answered.status).toBe(status)
    expect(answered.error).toMatchObject(error)
  })

  it('an expired JWT: 401 PGRST303 with WWW-Authenticate', async () => {
    const now = Math.floor(Date.now() / 1000)
    const claims = { sub: alice.id, role: 'authenticated', iat: now - 120, exp: now - 60 }
    const expired = await signAccessToken(claims)
    const response = await rest('/rest/v1/user_subscriptions', {
      headers: { apikey: LOCAL_ANON_KEY, Authorization: `Bearer ${expired}` },
    })
    expect(response.headers.get('www-authenticate')).toContain('invalid_token')
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 401,
      body: { code: 'PGRST303', details: null, hint: null, message: 'JWT expired' },
    })
  })
})

describe('writes roll back', () => {
  it('an insert of rows where a key missing from one is null, not the default', async () => {
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
    const withNulls = await service()
      .from('stripe_products')
      .insert([product('price_c', { active: false }), product('price_d')])
    expect(withNulls).toMatchObject({ status: 400, error: { code: '23502' } })
    const { rows } = await stack.db.query(
      `select 1 from public.stripe_products where stripe_price_id in ('price_c', 'price_d')`,
    )
    expect(rows).toHaveLength(0)
  })

  it('a write whose singular representation has the wrong cardinality', async () => {
    const events = [1, 2].map((n) => ({ ...EVENT, event_id: `evt_single_${n}` }))
    const written = await service().from('webhook_events').insert(events).select().single()
    expect(written).toMatchObject({ status: 406, error: { details: 'The result contains 2 rows' } })
    const { rows } = await stack.db.query(
      `select 1 from public.webhook_events where event_id like 'evt_single_%'`,
    )
    expect(rows).toHaveLength(0)
  })
})
