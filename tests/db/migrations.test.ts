import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { migrate, openDatabase, withDatabaseName, type Database } from '../local-stack/database'

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
  }, 60_000)
})
