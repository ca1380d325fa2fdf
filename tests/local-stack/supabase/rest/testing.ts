import { randomUUID } from 'node:crypto'

import { createClient } from '@supabase/supabase-js'

import type { Database } from '../../database'
import { LOCAL_ANON_KEY, LOCAL_SERVICE_ROLE_KEY, signAccessToken } from '../keys'
import { createRestHandler } from './handler'

/** Base URL the test clients use; requests never leave the process. */
const TEST_URL = 'http://127.0.0.1:54421'

/** Test helpers around one handler: real supabase-js clients whose fetch calls it directly. */
export function restTestKit(db: Database) {
  const handler = createRestHandler({ database: db })
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => handler(new Request(input, init))

  function client(key: string, accessToken?: string) {
    const headers: Record<string, string> = accessToken
      ? { Authorization: `Bearer ${accessToken}` }
      : {}
    return createClient(TEST_URL, key, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      global: { fetch, headers },
    })
  }

  /** A signed-in user's access token, signed like the auth server does. */
  async function userToken(userId: string, email: string, expiresIn = 3600) {
    const now = Math.floor(Date.now() / 1000)
    return signAccessToken({
      sub: userId,
      role: 'authenticated',
      aud: 'authenticated',
      iat: now,
      exp: now + expiresIn,
      session_id: randomUUID(),
      aal: 'aal1',
      email,
    })
  }

  /** Inserts a user into auth.users (the trigger creates its profile) and returns a client as them. */
  async function createUser(email: string) {
    const id = randomUUID()
    await db.query(
      'insert into auth.users (id, email, email_confirmed_at) values ($1, $2, now())',
      [id, email],
    )
    const token = await userToken(id, email)
    return { id, email, token, client: client(LOCAL_ANON_KEY, token) }
  }

  /** Sends a raw request to the handler (for what supabase-js cannot express). */
  function raw(path: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers)
    if (!headers.has('apikey')) headers.set('apikey', LOCAL_SERVICE_ROLE_KEY)
    return handler(new Request(`${TEST_URL}${path}`, { ...init, headers }))
  }

  return {
    handler,
    raw,
    client,
    userToken,
    createUser,
    service: client(LOCAL_SERVICE_ROLE_KEY),
    anon: client(LOCAL_ANON_KEY),
  }
}
