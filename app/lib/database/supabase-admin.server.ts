import { createClient, type SupabaseClient } from '@supabase/supabase-js'

import { getEnv } from '~/env.server'

let client: SupabaseClient | undefined

/** Bypasses row-level security: server-only, never reachable from the browser. */
export function getSupabaseAdmin(): SupabaseClient {
  const env = getEnv()
  client ??= createClient(env.SUPABASE_URL, env.SUPABASE_SERVICE_ROLE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  })
  return client
}
