import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Database } from '../../database'
import { createTestDatabase } from '../../testing/database'
import { restTestKit } from './testing'

let db: Database
let kit: ReturnType<typeof restTestKit>

beforeAll(async () => {
  db = await createTestDatabase()
  await db.exec(`
    create table public.numbers (id int primary key, label text);
    insert into public.numbers select n, 'n' || n from generate_series(1, 6) n;
    -- Nothing in public is granted by default (as on hosted Supabase): grant as a migration would.
    grant select on public.numbers to anon, authenticated, service_role;
    create function public.add_them(a int, b int) returns int language sql as $$ select a + b $$;
    create function public.greet(name text default 'world') returns text language sql as $$ select 'hello ' || name $$;
    create function public.numbers_between(lo int, hi int) returns setof public.numbers
      language sql stable as $$ select * from public.numbers where id between lo and hi $$;
    create function public.number_at(i int) returns public.numbers
      language sql stable as $$ select * from public.numbers where id = i $$;
    create function public.squares(upto int) returns setof int language sql as $$ select n * n from generate_series(1, upto) n $$;
    create function public.count_tags(tags text[]) returns int language sql as $$ select cardinality(tags) $$;
    create function public.noop() returns void language plpgsql as $$ begin end $$;
    create function public.whoami() returns jsonb language sql stable as $$
      select jsonb_build_object(
        'user', current_user, 'uid', auth.uid(), 'role', auth.role(),
        'method', current_setting('request.method', true), 'path', current_setting('request.path', true),
        'client', current_setting('request.headers', true)::jsonb ->> 'x-client-info') $$;
    create function public.fail(status text) returns int language plpgsql as $$
      begin raise exception 'nope: %', status using errcode = status, hint = 'try again'; end $$;`)
  kit = restTestKit(db)
})
afterAll(() => db.close())

describe('rpc', () => {
  it('passes named arguments and returns a scalar', async () => {
    const { data, error, status } = await kit.service.rpc('add_them', { a: 2, b: 40 })
    expect(error).toBeNull()
    expect(status).toBe(200)
    expect(data).toBe(42)
    const viaGet = await kit.anon.rpc('add_them', { a: 1, b: 2 }, { get: true })
    expect(viaGet.data).toBe(3)
  })

  it('uses defaults for omitted arguments', async () => {
    expect((await kit.anon.rpc('greet')).data).toBe('hello world')
    expect((await kit.anon.rpc('greet', { name: 'you' })).data).toBe('hello you')
  })

  it('returns sets as arrays; filters on a result are refused', async () => {
    const { data, error } = await kit.anon
      .rpc('numbers_between', { lo: 2, hi: 3 })
      .select('id, label')
    expect(error).toBeNull()
    expect(data).toEqual([
      { id: 2, label: 'n2' },
      { id: 3, label: 'n3' },
    ])
    expect((await kit.anon.rpc('squares', { upto: 3 })).data).toEqual([1, 4, 9])
    const filtered = await kit.anon.rpc('numbers_between', { lo: 2, hi: 6 }).neq('id', 4)
    expect(filtered.error?.code).toBe('PGRST100')
  })

  it('returns a single composite as an object, and single() works on sets', async () => {
    expect((await kit.anon.rpc('number_at', { i: 3 })).data).toEqual({ id: 3, label: 'n3' })
    const single = await kit.anon.rpc('numbers_between', { lo: 2, hi: 2 }).single()
    expect(single.data).toEqual({ id: 2, label: 'n2' })
  })

  it('converts JSON arrays to the declared type', async () => {
    expect((await kit.anon.rpc('count_tags', { tags: ['a', 'b', 'c'] })).data).toBe(3)
  })

  it('answers 204 for void functions', async () => {
    const { data, error, status } = await kit.anon.rpc('noop')
    expect(error).toBeNull()
    expect(status).toBe(204)
    expect(data).toBeNull()
  })

  it('runs as the JWT role with the request settings PostgREST sets', async () => {
    const user = await kit.createUser('rpc@example.com')
    const { data, error } = await user.client.rpc('whoami')
    expect(error).toBeNull()
    expect(data).toMatchObject({
      user: 'authenticated',
      uid: user.id,
      role: 'authenticated',
      method: 'POST',
      path: '/rpc/whoami',
    })
    expect(data.client).toMatch(/^supabase-js/)
    expect((await kit.anon.rpc('whoami')).data).toMatchObject({
      user: 'anon',
      uid: null,
      role: 'anon',
    })
  })

  it('unknown function or argument is 404 PGRST202', async () => {
    const { error, status } = await kit.anon.rpc('missing_fn', { a: 1 })
    expect(status).toBe(404)
    expect(error).toEqual({
      code: 'PGRST202',
      details:
        'Searched for the function public.missing_fn with parameters a or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.',
      hint: null,
      message: 'Could not find the function public.missing_fn(a) in the schema cache',
    })
    expect((await kit.anon.rpc('add_them', { a: 1, c: 2 })).error?.code).toBe('PGRST202')
  })

  it('maps raised errors: P0001 → 400, PTxyz → xyz, bad input → 400', async () => {
    const raised = await kit.anon.rpc('fail', { status: 'P0001' })
    expect(raised.status).toBe(400)
    expect(raised.error).toEqual({
      code: 'P0001',
      details: null,
      hint: 'try again',
      message: 'nope: P0001',
    })
    expect((await kit.anon.rpc('fail', { status: 'PT402' })).status).toBe(402)
    const badInput = await kit.anon.rpc('add_them', { a: 'x', b: 1 })
    expect(badInput.status).toBe(400)
    expect(badInput.error?.code).toBe('22P02')
  })
})
