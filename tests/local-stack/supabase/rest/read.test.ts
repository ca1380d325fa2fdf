import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Database } from '../../database'
import { createTestDatabase } from '../../testing/database'
import { restTestKit } from './testing'

let db: Database
let kit: ReturnType<typeof restTestKit>

beforeAll(async () => {
  db = await createTestDatabase()
  await db.exec(`
    create table public.items (
      id bigint primary key,
      name text not null,
      qty int,
      price numeric(10, 2),
      tags text[] not null default '{}',
      meta jsonb not null default '{}',
      active boolean not null default true,
      created_at timestamptz not null
    );
    insert into public.items values
      (1, 'apple', 5, 1.50, '{fruit,red}', '{"color":"red"}', true, '2026-01-01T00:00:00Z'),
      (2, 'banana', null, 0.25, '{fruit}', '{"color":"yellow"}', true, '2026-01-02T00:00:00Z'),
      (3, 'carrot', 10, 0.40, '{vegetable}', '{"color":"orange"}', false, '2026-01-03T00:00:00Z'),
      (4, 'a, b (special)', 1, null, '{}', '{}', true, '2026-01-04T00:00:00Z'),
      (9007199254740993, 'Dates', 7, 3.00, '{fruit}', '{"color":"brown"}', true, '2026-01-05T12:30:00.5Z');
    -- Nothing in public is granted by default (as on hosted Supabase): grant as a migration would.
    grant select on public.items to anon, authenticated, service_role;`)
  kit = restTestKit(db)
})
afterAll(() => db.close())

const ids = (rows: unknown) => (rows as { id: number }[] | null)?.map((row) => row.id)
// Beyond Number.MAX_SAFE_INTEGER: JSON.parse rounds it the same way, the raw body keeps every digit.
const BIG = Number('9007199254740993')

describe('filters', () => {
  it.each([
    ['eq', (q: Query) => q.eq('name', 'banana'), [2]],
    ['neq', (q: Query) => q.neq('active', true), [3]],
    ['gt', (q: Query) => q.gt('qty', 5), [3, BIG]],
    ['gte', (q: Query) => q.gte('qty', 5), [1, 3, BIG]],
    ['lt', (q: Query) => q.lt('price', 0.4), [2]],
    ['lte', (q: Query) => q.lte('price', 0.4), [2, 3]],
    ['is null', (q: Query) => q.is('qty', null), [2]],
    ['is false', (q: Query) => q.is('active', false), [3]],
    ['not is null', (q: Query) => q.not('price', 'is', null), [1, 2, 3, BIG]],
    ['in', (q: Query) => q.in('name', ['apple', 'a, b (special)', 'nope']), [1, 4]],
    ['not in', (q: Query) => q.not('id', 'in', '(1,2,3)'), [4, BIG]],
    ['empty in', (q: Query) => q.in('id', []), []],
    ['timestamp', (q: Query) => q.gte('created_at', '2026-01-04T00:00:00Z'), [4, BIG]],
  ])('%s', async (_name, apply, expected) => {
    const { data, error } = await apply(kit.service.from('items').select('id')).order('id')
    expect(error).toBeNull()
    expect(ids(data)).toEqual(expected)
  })

  it('passes values as parameters, so quotes cannot inject SQL', async () => {
    const { data, error } = await kit.service.from('items').select('id').eq('name', "x' or '1'='1")
    expect(error).toBeNull()
    expect(data).toEqual([])
  })
})

type Query = ReturnType<ReturnType<typeof restTestKit>['service']['from']>['select'] extends (
  ...args: never[]
) => infer R
  ? R
  : never

describe('single and maybeSingle', () => {
  it.each([
    [0, (q: Query) => q.eq('id', 42)],
    [2, (q: Query) => q.in('id', [1, 2])],
  ])('single with %i rows is a 406 PGRST116', async (rows, apply) => {
    const { data, error, status } = await apply(kit.service.from('items').select('id')).single()
    expect(status).toBe(406)
    expect(data).toBeNull()
    expect(error).toEqual({
      code: 'PGRST116',
      details: `The result contains ${rows} rows`,
      hint: null,
      message: 'Cannot coerce the result to a single JSON object',
    })
  })
})

describe('schemas', () => {
  it('only exposes public', async () => {
    const { error, status } = await kit.service.schema('private').from('items').select('*')
    expect(status).toBe(406)
    expect(error).toEqual({
      code: 'PGRST106',
      details: null,
      hint: 'Only the following schemas are exposed: public',
      message: 'Invalid schema: private',
    })
  })

  it('reads run in a read-only transaction', async () => {
    await db.exec(
      `create function public.touch_items() returns int language sql as $$ update public.items set qty = qty returning 1 $$`,
    )
    const { error, status } = await kit.service.rpc('touch_items', {}, { get: true })
    expect(status).toBe(405)
    expect(error?.code).toBe('25006')
  })
})
