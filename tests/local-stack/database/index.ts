import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'

/** Anything that runs SQL: the database itself or a transaction on it (`exec`: a script). */
export interface Queryable {
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: Row[]; affectedRows: number }>
  exec(sql: string): Promise<void>
}

/** How a transaction starts: `begin read only`, and its transaction-local settings. */
export interface TransactionOptions {
  readOnly?: boolean
  /** Transaction-local settings (`set_config(name, value, true)`), before fn's first statement. */
  settings?: Record<string, string>
}

/** A real Postgres for the local stack: embedded PGlite, or a PostgreSQL server. */
export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres'
  /** Runs fn in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>
  close(): Promise<void>
}

const here = path.dirname(fileURLToPath(import.meta.url))

/** The nearest folder holding `supabase/config.toml`, as the Supabase CLI finds it. */
function findProjectRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'supabase/config.toml'))) return dir
    if (path.dirname(dir) === dir) return start
  }
}

export const PROJECT_ROOT = findProjectRoot(process.cwd())
export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'supabase/migrations')
const BOOTSTRAP_DIR = path.join(here, 'bootstrap')

class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const
  constructor(readonly pglite: PGlite) {}

  async query<Row>(sql: string, params: unknown[] = []) {
    const result = await this.pglite.query<Row>(sql, params)
    return { rows: result.rows, affectedRows: result.affectedRows ?? 0 }
  }
  async exec(sql: string) {
    await this.pglite.exec(sql)
  }
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}) {
    return this.pglite.transaction(async (tx) => {
      if (options.readOnly) await tx.query('set transaction read only')
      const settings = Object.entries(options.settings ?? {})
      if (settings.length) {
        const calls = settings.map(
          (_, index) => `set_config($${2 * index + 1}, $${2 * index + 2}, true)`,
        )
        await tx.query(`select ${calls.join(', ')}`, settings.flat())
      }
      return fn({
        async query<Row>(sql: string, params: unknown[] = []) {
          const result = await tx.query<Row>(sql, params)
          return { rows: result.rows, affectedRows: result.affectedRows ?? 0 }
        },
        async exec(sql: string) {
          await tx.exec(sql)
        },
      })
    })
  }
  async close() {
    if (!this.pglite.closed) await this.pglite.close()
  }
}

class ServerDatabase implements Database {
  readonly kind = 'postgres' as const
  constructor(
    readonly pool: pg.Pool,
    private readonly onClose?: () => Promise<void>,
  ) {}

  async query<Row>(sql: string, params: unknown[] = []) {
    const result = await this.pool.query(sql, params)
    return { rows: result.rows as Row[], affectedRows: result.rowCount ?? 0 }
  }
  async exec(sql: string) {
    await this.pool.query(sql)
  }
  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}) {
    const client = await this.pool.connect()
    // A dying connection's 'error' event must not crash the process; the client is discarded.
    const ignore = () => {}
    client.on('error', ignore)
    let broken: Error | undefined
    // `begin` and the settings go out with the first statement in one socket write (pipeline
    // mode), so a REST request is two round trips, not three; a transaction that sends
    // nothing sends nothing. `commit` cannot ride along: fn decides after reading the result.
    let begun: Promise<unknown> | undefined
    const send = (sql: string, params?: unknown[]) => {
      if (begun) return client.query(sql, params)
      const settings = Object.entries(options.settings ?? {}).map(
        ([name, value]) =>
          `set_config(${client.escapeLiteral(name)}, ${client.escapeLiteral(value)}, true)`,
      )
      // Corked, the begin and the statement (whose own cork nests in this one) leave in one write.
      const stream = client.connection.stream
      stream.cork()
      try {
        begun = client.query(
          `begin${options.readOnly ? ' read only' : ''}` +
            (settings.length ? `; select ${settings.join(', ')}` : ''),
        )
        begun.catch(ignore) // awaited by every statement below
        return client.query(sql, params)
      } finally {
        stream.uncork()
      }
    }
    const run = async (sql: string, params?: unknown[]) => {
      const pending = send(sql, params)
      try {
        await begun
      } catch (error) {
        // After a failed begin the statement fails as "aborted": report the begin's error.
        pending.catch(ignore)
        throw error
      }
      return pending
    }
    try {
      const value = await fn({
        async query<Row>(sql: string, params: unknown[] = []) {
          const result = await run(sql, params)
          return { rows: result.rows as Row[], affectedRows: result.rowCount ?? 0 }
        },
        async exec(sql: string) {
          await run(sql)
        },
      })
      // After fn: it decides (reading the statements' results) whether to throw and roll back.
      if (begun) await client.query('commit')
      return value
    } catch (error) {
      if (begun) {
        await client.query('rollback').catch((rollbackError: Error) => {
          broken = rollbackError
        })
      }
      throw error
    } finally {
      client.off('error', ignore)
      client.release(broken)
    }
  }
  async close() {
    await this.pool.end()
    await this.onClose?.()
  }
}

// bigint (int8) as a JS number, like PGlite does: amounts in minor units fit comfortably.
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

export interface OpenDatabaseOptions {
  /** PostgreSQL server URL; when absent an embedded PGlite database is used. */
  url?: string
  /** PGlite only: a folder to persist to (absent = in memory). */
  dataDir?: string
  /** PGlite only: a data-dir dump (from dumpDatabaseImage) to start from. */
  image?: Blob
}

/** Opens (but does not migrate) a database. */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  if (options.url) {
    // Pipeline mode: a transaction's begin and first statement share a round trip (see
    // ServerDatabase.transaction). Nothing here uses `rows` or cursors, which it refuses.
    const pool = new pg.Pool({
      connectionString: options.url,
      max: 10,
      types: pgTypes,
      pipeline: true,
    })
    pool.on('error', () => {}) // idle client errors surface on the next query instead
    return new ServerDatabase(pool)
  }
  const pglite = await PGlite.create({ dataDir: options.dataDir, loadDataDir: options.image })
  return new PgliteDatabase(pglite)
}

async function sqlFiles(dir: string) {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort()
  return Promise.all(
    names.map(async (name) => ({ name, sql: await readFile(path.join(dir, name), 'utf8') })),
  )
}

/** Bootstraps what hosted Supabase provides, then applies the new migrations; returns them. */
export async function migrate(db: Database): Promise<string[]> {
  for (const file of await sqlFiles(BOOTSTRAP_DIR)) await db.exec(file.sql)
  // The Supabase CLI's table (pkg/migration/history.go): the version, the file's statements
  // and its name without version or extension; here the statements are the file's text.
  await db.exec(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text not null primary key, statements text[], name text);
    -- A development database made before this table had the CLI's columns.
    alter table supabase_migrations.schema_migrations add column if not exists statements text[];`)
  const { rows } = await db.query<{ version: string }>(
    'select version from supabase_migrations.schema_migrations',
  )
  const done = new Set(rows.map((row) => row.version))
  const files = await sqlFiles(MIGRATIONS_DIR)
  // As `supabase db push`: a database that ran migrations this folder lacks (one migrated
  // before the schema was squashed, say) is refused rather than migrated over.
  const unknown = [...done].filter((version) => !files.some((f) => f.name.startsWith(version)))
  if (unknown.length > 0) {
    throw new Error(
      `Remote migration versions not found in local migrations directory: ${unknown.join(', ')}. Reset this database.`,
    )
  }
  const applied: string[] = []
  for (const file of files) {
    const [, version, name] = /^(\d+)_(.*)\.sql$/.exec(file.name) ?? []
    if (done.has(version)) continue
    try {
      await db.transaction(async (tx) => {
        await tx.exec(file.sql)
        await tx.query(
          'insert into supabase_migrations.schema_migrations (version, statements, name) values ($1, $2, $3)',
          [version, [file.sql], name],
        )
      })
    } catch (error) {
      throw new Error(`Migration ${file.name} failed: ${(error as Error).message}`, {
        cause: error,
      })
    }
    applied.push(file.name)
  }
  return applied
}

/** Dumps a PGlite database to an image that openDatabase({ image }) starts from quickly. */
export async function dumpDatabaseImage(db: Database): Promise<Blob> {
  if (!(db instanceof PgliteDatabase)) throw new Error('Only PGlite databases can be dumped')
  return db.pglite.dumpDataDir('none')
}

export function withDatabaseName(url: string, name: string) {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

/** Wraps a database so that tests can make it fail as `pg` does when the server is down. */
export function withOutageSwitch(inner: Database) {
  let down = false
  let stall: { released: Promise<void>; release: () => void } | undefined
  const refuse = () => {
    if (down)
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
        code: 'ECONNREFUSED',
      })
  }
  const database: Database = {
    get kind() {
      return inner.kind
    },
    async query(sql, params) {
      refuse()
      return inner.query(sql, params)
    },
    async exec(sql) {
      refuse()
      return inner.exec(sql)
    },
    async transaction(fn, options) {
      refuse()
      await stall?.released
      return inner.transaction(fn, options)
    },
    close: () => inner.close(),
  }
  const setStalled = (stalled: boolean) => {
    if (stalled && !stall) {
      let release!: () => void
      stall = { released: new Promise((resolve) => (release = resolve)), release }
    } else if (!stalled) {
      stall?.release()
      stall = undefined
    }
  }
  // While down, every call fails as a refused connection; while stalled, transactions wait.
  return { database, setDown: (value: boolean) => (down = value), setStalled }
}
