import { PostgrestClient } from '@supabase/postgrest-js'

import { getEnv } from '~/env.server'
import { requestIdHeader } from '~/lib/server/request-context.server'

import type { Database } from '../../../supabase/database.types'

/**
 * The one gateway to the database. A call on a kept-alive connection the server just closed is
 * sent once more: safe here (reads, the ledger's duplicates, idempotent updates). postgrest-js'
 * own retries are off: an outage answers 503 at once (database-availability.server.ts).
 */
export type DatabaseClient = PostgrestClient<Database>
export type DatabaseFunctions = Database['public']['Functions']

/** A call with it runs as the signed-in user, under RLS. */
export interface AsUser {
  accessToken: string
}

const DEFAULT_TIMEOUT_MS = 10_000

let serviceClient: { url: string; client: DatabaseClient } | undefined

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

function boundedFetch(timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const attempt = () => {
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
      const headers = { ...Object.fromEntries(new Headers(init?.headers)), ...requestIdHeader() }
      return fetch(input, { ...init, headers, signal }).catch((error: unknown) => {
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
