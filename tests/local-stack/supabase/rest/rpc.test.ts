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
    create function public.numbers_between(lo int, hi int) returns setof public.numbers
      language sql stable as $$ select * from public.numbers where id between lo and hi $$;
    create function public.fail(status text) returns int language plpgsql as $$
      begin raise exception 'nope: %', status using errcode = status, hint = 'try again'; end $$;`)
  kit = restTestKit(db)
})
afterAll(() => db.close())

describe('rpc', () => {
  it('refuses a filter on a function result: PGRST100', async () => {
    const filtered = await kit.anon.rpc('numbers_between', { lo: 2, hi: 6 }).neq('id', 4)
    expect(filtered.error?.code).toBe('PGRST100')
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
