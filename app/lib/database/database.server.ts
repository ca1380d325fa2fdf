import { PostgrestClient } from '@supabase/postgrest-js'

import { getEnv } from '~/env.server'

import type { Database } from '../../../supabase/database.types'

/**
 * The one gateway to the database: `@supabase/postgrest-js` (the client inside supabase-js)
 * typed by `Database`, generated from supabase/migrations (supabase/database.types.ts,
 * `npm run db:types`), so table names, columns and RPC arguments are checked by the compiler.
 *
 * Every call follows the same rules, whoever makes it:
 * - it is given up after `timeoutMs` (10 s unless the caller says less), from connecting to
 *   the last byte, and then fails with a message naming ETIMEDOUT;
 * - a request sent on a kept-alive connection the server had just closed ("other side
 *   closed", a reset) is sent once more, on a fresh connection. Safe for every call made
 *   here: reads have no effect, the ledger answers a repeated event as a duplicate, and the
 *   updates write the same values again;
 * - postgrest-js' own retries (up to three, seconds apart) are off: a page or a webhook
 *   answers 503 at once when the database cannot answer (database-availability.server.ts).
 *
 * As the service role by default; `asUser` runs the call as the signed-in user (the anon key
 * and their own access token), so row-level security applies exactly as for supabase-js.
 * Failures come back in `error` (postgrest-js' `{ message, code, details, hint }`; a network
 * failure's message names it), with the HTTP status beside it.
 */
export type DatabaseClient = PostgrestClient<Database>
export type DatabaseFunctions = Database['public']['Functions']

/** A signed-in user's access token: a call with it runs as them, under RLS. */
export interface AsUser {
  accessToken: string
}

const DEFAULT_TIMEOUT_MS = 10_000

let serviceClient: { url: string; client: DatabaseClient } | undefined

/** A database client with the rules above; the default one is made once per process. */
export function database({
  asUser,
  timeoutMs = DEFAULT_TIMEOUT_MS,
}: { asUser?: AsUser; timeoutMs?: number } = {}) {
  const env = getEnv()
  const isDefault = !asUser && timeoutMs === DEFAULT_TIMEOUT_MS
  if (isDefault && serviceClient?.url === env.SUPABASE_URL) return serviceClient.client
  const key = asUser ? env.SUPABASE_ANON_KEY : env.SUPABASE_SERVICE_ROLE_KEY
  const client = new PostgrestClient<Database>(`${env.SUPABASE_URL.replace(/\/+$/, '')}/rest/v1`, {
    headers: {
      apikey: key,
      Authorization: `Bearer ${asUser ? asUser.accessToken : key}`,
    },
    fetch: boundedFetch(timeoutMs),
    retry: false,
  })
  if (isDefault) serviceClient = { url: env.SUPABASE_URL, client }
  return client
}

/** `fetch` with the timeout and the one retry on a closed kept-alive connection. */
function boundedFetch(timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const attempt = () => {
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
      return fetch(input, { ...init, signal }).catch((error: unknown) => {
        if (timeout.aborted) {
          throw new Error(`database call: ETIMEDOUT after ${timeoutMs} ms`, { cause: error })
        }
        throw error
      })
    }
    try {
      return await attempt()
    } catch (error) {
      const code = (error as { cause?: { code?: unknown } }).cause?.code
      if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return attempt()
      throw error
    }
  }
}
