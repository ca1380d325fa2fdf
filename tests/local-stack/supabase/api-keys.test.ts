import { createClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import {
  LOCAL_ANON_KEY,
  LOCAL_PUBLISHABLE_KEY,
  LOCAL_SECRET_KEY,
  LOCAL_SERVICE_ROLE_KEY,
} from './keys'
import { raw, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

const BROWSER_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'

function clientWith(key: string) {
  return createClient(stack.emulator.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  })
}

describe('API keys: publishable and secret beside the legacy JWTs', () => {
  it('the publishable key signs users in like the anon key, and is no admin', async () => {
    await stack.createUser('pub@example.com')
    const client = clientWith(LOCAL_PUBLISHABLE_KEY)
    const { data, error } = await client.auth.signInWithPassword({
      email: 'pub@example.com',
      password: 'correct-horse-battery',
    })
    expect(error).toBeNull()
    expect(data.session?.access_token).toBeTruthy()
    const admin = await clientWith(LOCAL_PUBLISHABLE_KEY).auth.admin.listUsers()
    expect(admin.error?.status).toBe(403)
    expect(admin.error?.code).toBe('not_admin')
  })

  it('the secret key is the service role: admin API, and RLS bypassed in PostgREST', async () => {
    const secret = clientWith(LOCAL_SECRET_KEY)
    const { data, error } = await secret.auth.admin.createUser({
      email: 'made-by-secret@example.com',
      email_confirm: true,
    })
    expect(error).toBeNull()
    expect(data.user?.email).toBe('made-by-secret@example.com')
    // Profiles are readable by their owner only; the service role reads them all.
    const asSecret = await secret.from('user_profiles').select('user_id')
    const asPublishable = await clientWith(LOCAL_PUBLISHABLE_KEY)
      .from('user_profiles')
      .select('user_id')
    expect(asSecret.error).toBeNull()
    expect(asSecret.data?.length).toBeGreaterThan(0)
    // anon has no privilege on the table at all (an error) or no rows: either way, none.
    expect(asPublishable.data ?? []).toHaveLength(0)
  })

  it('a user token with the publishable key acts as that user', async () => {
    await stack.createUser('pub-user@example.com')
    const client = clientWith(LOCAL_PUBLISHABLE_KEY)
    await client.auth.signInWithPassword({
      email: 'pub-user@example.com',
      password: 'correct-horse-battery',
    })
    const { data, error } = await client.auth.getUser()
    expect(error).toBeNull()
    expect(data.user?.email).toBe('pub-user@example.com')
  })

  it('refuses the secret key from a browser (User-Agent), 401, but not the publishable one', async () => {
    const secret = await raw(stack.emulator, '/auth/v1/admin/users', {
      headers: { apikey: LOCAL_SECRET_KEY, 'user-agent': BROWSER_UA },
    })
    expect(secret.status).toBe(401)
    expect(await secret.json()).toMatchObject({
      message: 'Forbidden use of secret API key in browser',
    })
    const rest = await raw(stack.emulator, '/rest/v1/profiles?select=id', {
      headers: { apikey: LOCAL_SECRET_KEY, 'user-agent': BROWSER_UA },
    })
    expect(rest.status).toBe(401)
    const publishable = await raw(stack.emulator, '/auth/v1/settings', {
      headers: { apikey: LOCAL_PUBLISHABLE_KEY, 'user-agent': BROWSER_UA },
    })
    expect(publishable.status).toBe(200)
    // The legacy service_role key has no such check.
    const legacy = await raw(stack.emulator, '/auth/v1/admin/users', {
      headers: {
        apikey: LOCAL_SERVICE_ROLE_KEY,
        authorization: `Bearer ${LOCAL_SERVICE_ROLE_KEY}`,
        'user-agent': BROWSER_UA,
      },
    })
    expect(legacy.status).toBe(200)
  })

  it('takes a new key in Authorization only when it equals the apikey header', async () => {
    const mismatched = await raw(stack.emulator, '/auth/v1/admin/users', {
      headers: { apikey: LOCAL_PUBLISHABLE_KEY, authorization: `Bearer ${LOCAL_SECRET_KEY}` },
    })
    expect(mismatched.status).toBe(401)
    const same = await raw(stack.emulator, '/auth/v1/admin/users', {
      headers: { apikey: LOCAL_SECRET_KEY, authorization: `Bearer ${LOCAL_SECRET_KEY}` },
    })
    expect(same.status).toBe(200)
    const keyOnly = await raw(stack.emulator, '/auth/v1/admin/users', {
      headers: { apikey: LOCAL_SECRET_KEY },
    })
    expect(keyOnly.status).toBe(200)
  })

  it('an unknown sb_ key is an invalid API key', async () => {
    const response = await raw(stack.emulator, '/auth/v1/settings', {
      headers: { apikey: 'sb_publishable_not-this-project' },
    })
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ message: 'Invalid API key' })
  })

  it('keeps the legacy anon key working', async () => {
    const response = await raw(stack.emulator, '/auth/v1/settings', {
      headers: { apikey: LOCAL_ANON_KEY },
    })
    expect(response.status).toBe(200)
  })
})
