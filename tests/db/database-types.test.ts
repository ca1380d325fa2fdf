import { readFile } from 'node:fs/promises'

import { afterAll, expect, it } from 'vitest'

import { DATABASE_TYPES_PATH, generateDatabaseTypes } from '../../tools/database-types'
import { createTestDatabase } from '../setup/database'

const db = await createTestDatabase()
afterAll(() => db.close())

it('the committed Database type is the one the migrations give (npm run db:types)', async () => {
  const committed = await readFile(DATABASE_TYPES_PATH, 'utf8')
  expect(await generateDatabaseTypes(db)).toBe(committed)
})
