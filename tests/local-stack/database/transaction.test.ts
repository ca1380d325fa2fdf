import type { Duplex } from 'node:stream'

import type pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { startTestStack, type TestStack } from '../supabase/test-support'
import type { Database, Queryable } from './index'

let stack: TestStack
let db: Database

beforeAll(async () => {
  stack = await startTestStack()
  db = stack.db
  await db.exec(`
    create table public.tx_notes (id int primary key, body text not null);
    grant select, insert on public.tx_notes to service_role;
    create function public.tx_add(a int, b int) returns int language sql as $$ select a + b $$;`)
})
afterAll(() => stack.close())

async function noteIds() {
  const { rows } = await db.query<{ id: number }>('select id from public.tx_notes order by id')
  return rows.map((row) => row.id)
}

beforeEach(async () => {
  await db.query('delete from public.tx_notes')
})

describe('transaction (either database)', () => {
  it('keeps the settings transaction-local', async () => {
    await db.transaction((tx) => tx.query('select 1'), { settings: { 'request.method': 'POST' } })
    // Every pooled connection (at most 10) answers: none kept the setting.
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        db.transaction(async (tx) => {
          const { rows } = await tx.query<{ method: string | null }>(
            `select nullif(current_setting('request.method', true), '') as method`,
          )
          return rows[0].method
        }),
      ),
    )
    expect(answers.every((method) => method === null)).toBe(true)
  })

  it('reports a failing first statement with its own error, rolls back, and goes on', async () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      await expect(
        db.transaction((tx) => tx.query('select * from public.no_such_table')),
      ).rejects.toMatchObject({ code: '42P01' })
    }
    await db.transaction((tx) => tx.query(`insert into public.tx_notes values (1, 'kept')`))
    expect(await noteIds()).toEqual([1])
  })

  it('rolls back earlier statements when a later one fails', async () => {
    const fn = async (tx: Queryable) => {
      await tx.query(`insert into public.tx_notes values (2, 'first')`)
      await tx.query(`insert into public.tx_notes values (3, null)`)
    }
    await expect(db.transaction(fn)).rejects.toMatchObject({ code: '23502' })
    expect(await noteIds()).toEqual([])
  })

  it("reports a failing begin's own error (a role that does not exist), not the statement's", async () => {
    await expect(
      db.transaction((tx) => tx.query(`insert into public.tx_notes values (5, 'never')`), {
        settings: { role: 'no_such_role' },
      }),
    ).rejects.toThrow('role "no_such_role" does not exist')
    expect(await noteIds()).toEqual([])
    expect(await db.transaction(async (tx) => (await tx.query('select 1 as one')).rows)).toEqual([
      { one: 1 },
    ])
  })

  it('runs a transaction whose fn sends nothing', async () => {
    expect(await db.transaction(async () => 'nothing to send')).toBe('nothing to send')
    await expect(
      db.transaction(async () => {
        throw new Error('before any statement')
      }),
    ).rejects.toThrow('before any statement')
  })
})

/** The pool of a PostgreSQL-server database (ServerDatabase keeps it as `pool`). */
function poolOf(database: Database) {
  return (database as unknown as { pool: pg.Pool }).pool
}

/** Counts the socket writes (`_write` or `_writev`) of every connection the pool hands out. */
function countWrites(pool: pg.Pool) {
  const counted = new WeakSet<Duplex>()
  const counter = { writes: 0 }
  pool.on('acquire', (client) => {
    const stream = (client as pg.Client).connection.stream as Duplex & {
      _writev?: (...args: unknown[]) => void
    }
    if (counted.has(stream)) return
    counted.add(stream)
    const write = stream._write.bind(stream)
    stream._write = (...args) => {
      counter.writes++
      write(...args)
    }
    const writev = stream._writev?.bind(stream)
    if (writev) {
      stream._writev = (...args: unknown[]) => {
        counter.writes++
        writev(...args)
      }
    }
  })
  return counter
}

describe.runIf(process.env.DATABASE_URL)('transaction on a PostgreSQL server', () => {
  let counter: { writes: number }
  beforeAll(() => {
    counter = countWrites(poolOf(db))
  })

  it('sends begin with the first statement: two writes per REST call (begin + statement, commit)', async () => {
    // Warm the schema cache, so that each request below runs just its statement.
    expect((await stack.admin().rpc('tx_add', { a: 1, b: 2 })).data).toBe(3)
    expect((await stack.admin().from('tx_notes').insert({ id: 8, body: 'warm' })).status).toBe(201)

    counter.writes = 0
    const { data, error } = await stack.admin().rpc('tx_add', { a: 2, b: 40 })
    expect(error).toBeNull()
    expect(data).toBe(42)
    expect(counter.writes).toBe(2)

    counter.writes = 0
    const { status } = await stack.admin().from('tx_notes').insert({ id: 9, body: 'counted' })
    expect(status).toBe(201)
    expect(counter.writes).toBe(2)
    expect(await noteIds()).toEqual([8, 9])
  })

  it('sends nothing for a transaction without statements', async () => {
    counter.writes = 0
    await db.transaction(async () => undefined, { settings: { role: 'authenticated' } })
    expect(counter.writes).toBe(0)
  })

  it('discards a connection that dies mid-transaction and goes on with the others', async () => {
    await expect(
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('select pg_backend_pid() as pid')
        await tx.query(`insert into public.tx_notes values (10, 'lost')`)
        await db.query('select pg_terminate_backend($1)', [rows[0].pid])
        await tx.query('select 1')
      }),
    ).rejects.toThrow()
    expect(await noteIds()).toEqual([])
    await db.transaction((tx) => tx.query(`insert into public.tx_notes values (11, 'after')`))
    expect(await noteIds()).toEqual([11])
  })
})
