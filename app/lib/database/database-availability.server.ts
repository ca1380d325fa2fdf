import { data } from '@remix-run/node'

import { database } from '~/lib/database/database.server'
import { logger } from '~/lib/server/logger.server'

/**
 * The errors of an outage (docs/operations.md lists them); anything else (a constraint, a
 * permission, a bad argument) would not be fixed by retrying, so it stays a 500.
 */
const UNAVAILABLE_CODE = /^(PGRST00[0-3]|08[0-9A-Z]{3}|57P0[1-3]|53300)$/
const UNAVAILABLE_MESSAGE =
  /fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|TimeoutError|EPIPE|socket hang up|other side closed|network error|terminating connection|Connection terminated|the database system is (starting up|shutting down)/i

/** Whether a failed database call (a PostgrestError-like or a throw) means an outage for now. */
export function isDatabaseUnavailable(failure: unknown): boolean {
  if (typeof failure !== 'object' || failure === null) return false
  if (outageAnswers.has(failure)) return true
  const { code, message, status, cause } = failure as Record<string, unknown>
  if (typeof code === 'string' && UNAVAILABLE_CODE.test(code)) return true
  if (status === 502 || status === 503 || status === 504) return true
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true
  return cause !== undefined && cause !== failure && isDatabaseUnavailable(cause)
}

const DATABASE_UNAVAILABLE_MESSAGE =
  'We cannot reach our database for a moment. Nothing was lost: please try again shortly.'

export const RETRY_AFTER_SECONDS = 5

/** The answers `databaseError` made for an outage, so a catch can tell them from bugs. */
const outageAnswers = new WeakSet<object>()

function describe(cause: unknown) {
  if (cause && typeof cause === 'object' && 'message' in cause) {
    const { message, code } = cause as { message?: unknown; code?: unknown }
    return code ? `${String(message)} (${String(code)})` : String(message)
  }
  return String(cause)
}

/**
 * In an outage a logged `data(…, { status: 503 })`, a 503 wherever it escapes a loader or action
 * (webhooks catch it so the provider retries); otherwise a plain Error, a 500.
 */
export function databaseError(what: string, failure: unknown) {
  if (!isDatabaseUnavailable(failure)) {
    return new Error(`${what} failed: ${describe(failure)}`, { cause: failure })
  }
  logger.error({ what, cause: describe(failure) }, 'database unavailable')
  const answer = data(DATABASE_UNAVAILABLE_MESSAGE, { status: 503 })
  outageAnswers.add(answer)
  return answer
}

type Migrations = 'current' | 'behind' | 'ahead' | 'unknown'
/** Whether the database answers and, when it does, its migrations against this build's. */
export type DatabaseState = { database: 'unavailable' } | { database: 'ok'; migrations: Migrations }

/** The newest migration this build has: Vite lists the files (their SQL is never loaded). */
const built = () =>
  Object.keys(import.meta.glob('/supabase/migrations/*.sql', { query: '?raw' }))
    .sort()
    .at(-1)!
    .replace(/^.*\/(\d+)_[^/]*$/, '$1')

const CHECK_TIMEOUT_MS = 2_000
/** A load balancer polling every instance every second costs one query per second at most. */
const CHECK_CACHE_MS = 1_000

let lastCheck: { at: number; state: DatabaseState } | undefined
let inFlight: Promise<DatabaseState> | undefined
let lastMigrations: Migrations | undefined

/** The database's state, asked at most once a second; each change of its migrations' is logged. */
export function checkDatabase(now = Date.now()): Promise<DatabaseState> {
  if (lastCheck && now - lastCheck.at < CHECK_CACHE_MS) return Promise.resolve(lastCheck.state)
  inFlight ??= (async () => {
    const { data, error } = await database({ timeoutMs: CHECK_TIMEOUT_MS }).rpc('schema_version')
    const newest = built()
    // PGRST202, no such function: the database lacks the migration that made it.
    const behind = error?.code === 'PGRST202' || (!!data && data < newest)
    const migrations = behind ? 'behind' : !data ? 'unknown' : data > newest ? 'ahead' : 'current'
    const state: DatabaseState =
      error && !behind ? { database: 'unavailable' } : { database: 'ok', migrations }
    if (state.database === 'ok' && migrations !== lastMigrations) {
      lastMigrations = migrations
      const level = migrations === 'current' ? 'info' : 'warn'
      logger[level]({ version: data }, `database migrations ${migrations} (docs/operations.md)`)
    }
    lastCheck = { at: Date.now(), state }
    return state
  })().finally(() => {
    inFlight = undefined
  })
  return inFlight
}

export function resetDatabaseCheckForTests() {
  lastCheck = lastMigrations = undefined
}
