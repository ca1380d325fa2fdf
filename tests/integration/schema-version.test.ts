import { readdirSync, readFileSync } from 'node:fs'

import { expect, it, vi } from 'vitest'

import { resetDatabaseCheckForTests } from '~/lib/database/database-availability.server'
import { logger } from '~/lib/server/logger.server'

import { testAppForFile } from './harness'

// /healthz says whether the database's migrations are those the app was built with.
const app = testAppForFile()
const migrations = readdirSync('supabase/migrations').sort()
const [, version, name] = /^(\d+)_(.*)\.sql$/.exec(migrations.at(-1)!)!

async function health() {
  resetDatabaseCheckForTests()
  const response = await fetch(`${app.url}/healthz`)
  return { status: response.status, body: await response.json() }
}

// First: the stand-in's schema cache, as PostgREST's, keeps a function once it has served it.
it('a database without the function that reports it (an older one) is behind', async () => {
  await app.stack.database.query('alter function public.schema_version() rename to renamed')
  try {
    expect((await health()).body).toEqual({ ok: true, database: 'ok', migrations: 'behind' })
  } finally {
    await app.stack.database.query('alter function public.renamed() rename to schema_version')
  }
})

it('the local stack records each migration as the Supabase CLI does: version, statements, name', async () => {
  const file = migrations.find((migration) =>
    readFileSync(`supabase/migrations/${migration}`, 'utf8').includes(
      'function public.schema_version()',
    ),
  )!
  const { rows } = await app.stack.database.query<{ statements: string[]; name: string }>(
    'select statements, name from supabase_migrations.schema_migrations where version = $1',
    [file.split('_')[0]],
  )
  expect(rows[0].name).toBe(/^\d+_(.*)\.sql$/.exec(file)![1])
  expect(rows[0].statements.join('\n')).toContain('create function public.schema_version()')
})

it('current, behind (the newest migration missing), ahead (one the build lacks), each logged', async () => {
  const warn = vi.spyOn(logger, 'warn')
  const migrations = (state: string) => ({
    status: 200,
    body: { ok: true, database: 'ok', migrations: state },
  })
  expect(await health()).toEqual(migrations('current'))

  const { rows } = await app.stack.database.query<Record<string, unknown>>(
    'delete from supabase_migrations.schema_migrations where version = $1 returning *',
    [version],
  )
  expect(await health()).toEqual(migrations('behind'))
  expect(warn).toHaveBeenCalledWith(
    { version: expect.any(String) },
    expect.stringContaining('database migrations behind'),
  )

  await app.stack.database.query(
    'insert into supabase_migrations.schema_migrations (version, statements, name) values ($1, $2, $3), ($4, $5, $6)',
    [version, rows[0].statements, name, '99990101000000', ['select 1'], 'from_the_future'],
  )
  expect(await health()).toEqual(migrations('ahead'))
  expect(warn).toHaveBeenCalledWith(
    { version: '99990101000000' },
    expect.stringContaining('database migrations ahead'),
  )
  await app.stack.database.query(
    "delete from supabase_migrations.schema_migrations where version = '99990101000000'",
  )
  expect(await health()).toEqual(migrations('current'))
})
