import { createClient } from '@supabase/supabase-js'

import { createTestDatabase } from '../testing/database'
import { startSupabaseEmulator, type SupabaseEmulator, type SupabaseEmulatorOptions } from './index'
import { LOCAL_ANON_KEY, LOCAL_SERVICE_ROLE_KEY } from './keys'

export const SITE_URL = 'http://localhost:5173'

/** For a file whose journeys send more auth mails than the hourly budget (README.md). */
export const MANY_MAILS: Partial<SupabaseEmulatorOptions> = { rateLimits: { emailSent: 1000 } }

export type TestStack = Awaited<ReturnType<typeof startTestStack>>

export async function startTestStack(options: Partial<SupabaseEmulatorOptions> = {}) {
  const db = await createTestDatabase()
  const emulator = await startSupabaseEmulator({ database: db, siteUrl: SITE_URL, ...options })
  // Without persistence auth-js keeps the session and the PKCE verifier in memory.
  const noSession = { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false }
  const client = () =>
    createClient(emulator.url, LOCAL_ANON_KEY, { auth: { ...noSession, flowType: 'pkce' } })
  const admin = () => createClient(emulator.url, LOCAL_SERVICE_ROLE_KEY, { auth: noSession })
  return {
    db,
    emulator,
    /** A browser-like client: PKCE, in-memory storage, no persistence. */
    client,
    /** A client with the service_role key (admin API). */
    admin,
    /** Creates a confirmed user through the admin API. */
    async createUser(email: string, password = 'correct-horse-battery') {
      const { data, error } = await admin().auth.admin.createUser({
        email,
        password,
        email_confirm: true,
      })
      if (error || !data.user) throw error ?? new Error('no user')
      return data.user.id
    },
    /** Signs a user made by `createUser` in with a new `client()`. */
    async signIn(email: string) {
      const supabase = client()
      const { data, error } = await supabase.auth.signInWithPassword({
        email,
        password: 'correct-horse-battery',
      })
      if (error) throw error
      return { supabase, session: data.session }
    },
    async close() {
      await emulator.close()
      await db.close()
    },
  }
}

/** Sends a request to the emulator without following redirects. */
export function raw(emulator: SupabaseEmulator, path: string, init: RequestInit = {}) {
  return fetch(`${emulator.url}${path}`, { redirect: 'manual', ...init })
}

/** The query parameters of a redirect's Location. */
export function locationOf(response: Response) {
  const location = response.headers.get('location')
  if (!location) throw new Error(`no Location (status ${response.status})`)
  return new URL(location)
}
