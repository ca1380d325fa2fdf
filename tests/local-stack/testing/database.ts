import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'

import pg from 'pg'
import { inject } from 'vitest'

import { type Database, openDatabase, withDatabaseName } from '../database'

/**
 * A fresh, migrated database for one test file: a PGlite copy of the run's image, or a
 * new database on the PostgreSQL server cloned from the run's template. Close it after.
 */
export async function createTestDatabase(): Promise<Database> {
  const serverUrl = inject('databaseServerUrl')
  if (serverUrl) {
    const name = `app_test_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect()
    try {
      await admin.query(`create database ${name} template ${inject('databaseTemplate')}`)
    } finally {
      await admin.end()
    }
    const db = await openDatabase({ url: withDatabaseName(serverUrl, name) })
    const close = db.close.bind(db)
    db.close = async () => {
      await close()
      const dropper = new pg.Client({ connectionString: serverUrl })
      await dropper.connect()
      await dropper.query(`drop database if exists ${name} with (force)`).catch(() => {})
      await dropper.end()
    }
    return db
  }
  const image = await readFile(inject('databaseImagePath'))
  return openDatabase({ image: new Blob([image]) })
}
