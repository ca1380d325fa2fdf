// `npm run db:types`: supabase/database.types.ts from the migrations on a fresh PGlite, by the
// engine behind `supabase gen types typescript` (`@supabase/postgrest-typegen`).
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

import { generateTypescript, sortGeneratorMetadata } from '@supabase/postgrest-typegen/generation'
import { introspect } from '@supabase/postgrest-typegen/introspection'
import { format, resolveConfig } from 'prettier'

import { migrate, openDatabase, PROJECT_ROOT, type Queryable } from '../tests/local-stack/database'

export const DATABASE_TYPES_PATH = path.join(PROJECT_ROOT, 'supabase/database.types.ts')

const HEADER =
  '// Generated from supabase/migrations by `npm run db:types` (tools/database-types.ts).\n' +
  '// Do not edit: tests/db/database-types.test.ts fails when it no longer matches them.\n'

/** The TypeScript of the `public` schema of a migrated database. */
export async function generateDatabaseTypes(db: Queryable): Promise<string> {
  const metadata = await introspect(
    { query: (sql: string) => db.query<Record<string, unknown>>(sql) },
    { includedSchemas: ['public'] },
  )
  const types = await generateTypescript(sortGeneratorMetadata(metadata), {
    postgrestVersion: '12',
  })
  const options = await resolveConfig(DATABASE_TYPES_PATH)
  return format(HEADER + types, { ...options, filepath: DATABASE_TYPES_PATH })
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const db = await openDatabase()
  try {
    await migrate(db)
    await writeFile(DATABASE_TYPES_PATH, await generateDatabaseTypes(db))
    console.log(`wrote ${path.relative(PROJECT_ROOT, DATABASE_TYPES_PATH)}`)
  } finally {
    await db.close()
  }
}
