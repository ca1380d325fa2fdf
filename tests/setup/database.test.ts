import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Database } from '../local-stack/database'
import { createTestDatabase } from './database'

describe('test database', () => {
  let db: Database
  beforeAll(async () => {
    db = await createTestDatabase()
  })
  afterAll(() => db.close())

  it('is migrated', async () => {
    const { rows } = await db.query<{ version: string }>(
      'select version from supabase_migrations.schema_migrations order by version',
    )
    expect(rows.map((row) => row.version)).toContain('20261206110000')
  })

  it('rolls a failed transaction back', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query(
          `insert into auth.users (id, email) values (gen_random_uuid(), 'a@example.com')`,
        )
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    const { rows } = await db.query(`select 1 from auth.users where email = 'a@example.com'`)
    expect(rows).toHaveLength(0)
  })
})
