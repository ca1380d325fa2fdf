import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'

import pg from 'pg'
import { describe, expect, it } from 'vitest'

import {
  type Database,
  migrate,
  MIGRATIONS_DIR,
  openDatabase,
  withDatabaseName,
} from '../local-stack/database'

const serverUrl = process.env.DATABASE_URL

/** A brand-new, empty database: PGlite in memory, or a new database on the server. */
async function freshDatabase(): Promise<Database> {
  if (!serverUrl) return openDatabase()
  const name = `app_migrate_${randomBytes(5).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const db = await openDatabase({ url: withDatabaseName(serverUrl, name) })
  const close = db.close.bind(db)
  db.close = async () => {
    await close()
    const dropper = new pg.Client({ connectionString: serverUrl })
    await dropper.connect()
    await dropper.query(`drop database if exists ${name} with (force)`)
    await dropper.end()
  }
  return db
}

describe('supabase/migrations', () => {
  it('apply cleanly to a fresh database, twice in a row, and only once each', async () => {
    for (let round = 0; round < 2; round++) {
      const db = await freshDatabase()
      try {
        const applied = await migrate(db)
        expect(applied.length).toBeGreaterThan(0)
        expect(await migrate(db)).toEqual([])
        const { rows } = await db.query<{ tablename: string }>(
          `select tablename from pg_tables where schemaname = 'public' order by tablename`,
        )
        expect(rows.map((row) => row.tablename)).toEqual(
          expect.arrayContaining([
            'payment_history',
            'stripe_products',
            'user_profiles',
            'user_subscriptions',
            'webhook_events',
          ]),
        )
        const rls = await db.query<{ relname: string }>(
          `select relname from pg_class where relnamespace = 'public'::regnamespace and relkind = 'r' and not relrowsecurity`,
        )
        expect(rls.rows).toEqual([])
        const bucket = await db.query(
          `select public from storage.buckets where id = 'profile-images'`,
        )
        expect(bucket.rows).toEqual([{ public: true }])
      } finally {
        await db.close()
      }
    }
  }, 120_000)

  it('refuse a database that ran a migration the folder lacks, as `supabase db push` does', async () => {
    const db = await freshDatabase()
    try {
      await migrate(db)
      await db.query(
        `insert into supabase_migrations.schema_migrations (version, name) values ('20261122000100', 'initial_schema')`,
      )
      await expect(migrate(db)).rejects.toThrow(
        'Remote migration versions not found in local migrations directory: 20261122000100',
      )
    } finally {
      await db.close()
    }
  }, 60_000)
})

describe('migration file names', () => {
  const names = readdirSync(MIGRATIONS_DIR).filter((name) => name.endsWith('.sql'))

  /** The UTC time a `YYYYMMDDHHMMSS_name.sql` file claims, or null when the name is malformed. */
  function claimedTime(name: string): Date | null {
    const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})_[a-z0-9_]+\.sql$/.exec(name)
    if (!match) return null
    const [, y, mo, d, h, mi, s] = match.map(Number)
    const time = new Date(Date.UTC(y, mo - 1, d, h, mi, s))
    return time.getUTCMonth() === mo - 1 && time.getUTCDate() === d ? time : null
  }

  it('are Supabase CLI timestamps with a snake_case name, each version once', () => {
    expect(names.length).toBeGreaterThan(0)
    expect(names.filter((name) => claimedTime(name) === null)).toEqual([])
    const versions = names.map((name) => name.split('_')[0])
    expect(new Set(versions).size).toBe(versions.length)
  })

  it('never lie in the future (a later migration would be ordered before them)', () => {
    const now = Date.now()
    expect(names.filter((name) => (claimedTime(name)?.getTime() ?? 0) > now)).toEqual([])
  })

  it('the checks catch a future date and a malformed name', () => {
    expect(claimedTime('29991231000000_later.sql')!.getTime()).toBeGreaterThan(Date.now())
    expect(claimedTime('20261301000000_bad_month.sql')).toBeNull()
    expect(claimedTime('2026-11-24_dashes.sql')).toBeNull()
  })
})
