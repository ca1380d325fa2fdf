import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Database } from '../../database'
import { createTestDatabase } from '../../testing/database'
import { LOCAL_ANON_KEY, LOCAL_JWT_SECRET } from '../keys'
import { restTestKit } from './testing'

let db: Database
let kit: ReturnType<typeof restTestKit>
let alice: Awaited<ReturnType<ReturnType<typeof restTestKit>['createUser']>>

beforeAll(async () => {
  db = await createTestDatabase()
  kit = restTestKit(db)
  alice = await kit.createUser('alice@example.com')
  const subscription = await kit.service
    .from('user_subscriptions')
    .insert({ user_id: alice.id, provider: 'stripe', status: 'active' })
  expect(subscription.error).toBeNull()
})
afterAll(() => db.close())

describe('row-level security through real policies', () => {
  it('a user cannot insert a subscription: 403 42501 and no row', async () => {
    const { error, status } = await alice.client
      .from('user_subscriptions')
      .upsert(
        { user_id: alice.id, status: 'active', plan_name: 'free-upgrade' },
        { onConflict: 'user_id' },
      )
    expect(status).toBe(403)
    expect(error).toMatchObject({
      code: '42501',
      message: 'permission denied for table user_subscriptions',
    })
    const { rows } = await db.query(
      'select plan_name from public.user_subscriptions where user_id = $1',
      [alice.id],
    )
    expect(rows).toEqual([{ plan_name: null }])
  })

  it('anon is refused with 401: no table in public is granted to it', async () => {
    const subscriptions = await kit.anon.from('user_subscriptions').select('*')
    expect(subscriptions.status).toBe(401)
    expect(subscriptions.error).toMatchObject({ code: '42501' })
    const profiles = await kit.anon.from('user_profiles').select('*')
    expect(profiles.status).toBe(401)
    expect(profiles.error).toMatchObject({
      code: '42501',
      message: 'permission denied for table user_profiles',
    })
  })
})

describe('JWT', () => {
  it('rejects a token with a bad signature: 401 PGRST301', async () => {
    const forged = await new SignJWT({ role: 'service_role' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(`${LOCAL_JWT_SECRET}-not`))
    const { error, status } = await kit
      .client(LOCAL_ANON_KEY, forged)
      .from('user_subscriptions')
      .select('*')
    expect(status).toBe(401)
    expect(error).toMatchObject({ code: 'PGRST301', details: null, hint: null })
  })

  it('rejects an expired token: 401 PGRST303 "JWT expired"', async () => {
    const expired = await kit.userToken(alice.id, alice.email, -60)
    const response = await kit.raw('/rest/v1/user_subscriptions', {
      headers: { apikey: LOCAL_ANON_KEY, Authorization: `Bearer ${expired}` },
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('invalid_token')
    expect(await response.json()).toEqual({
      code: 'PGRST303',
      details: null,
      hint: null,
      message: 'JWT expired',
    })
  })

  it('rejects a malformed token and roles other than the API roles', async () => {
    const malformed = await kit.raw('/rest/v1/user_subscriptions', {
      headers: { Authorization: 'Bearer abc' },
    })
    expect(malformed.status).toBe(401)
    expect((await malformed.json()).code).toBe('PGRST301')
    const postgres = await new SignJWT({ role: 'postgres' })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(LOCAL_JWT_SECRET))
    const superuser = await kit.raw('/rest/v1/user_subscriptions', {
      headers: { Authorization: `Bearer ${postgres}` },
    })
    expect(superuser.status).toBe(403)
    expect((await superuser.json()).message).toBe('permission denied to set role "postgres"')
  })

  it('treats a request without any key as anon', async () => {
    const response = await kit.handler(
      new Request('http://127.0.0.1/rest/v1/user_subscriptions?select=*'),
    )
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({
      code: '42501',
      message: 'permission denied for table user_subscriptions',
    })
  })
})
