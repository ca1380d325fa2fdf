import { createClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_ANON_KEY } from './keys'
import { locationOf, raw, SITE_URL, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

describe('admin API', () => {
  it('creates, reads, updates, lists and deletes users', async () => {
    const admin = stack.admin().auth.admin
    const created = await admin.createUser({
      email: 'Admin-Made@example.com',
      password: 'hunter22',
      email_confirm: true,
      user_metadata: { full_name: 'Admin Made' },
      app_metadata: { plan: 'pro' },
    })
    expect(created.error).toBeNull()
    const user = created.data.user!
    expect(user).toMatchObject({
      email: 'admin-made@example.com',
      user_metadata: { full_name: 'Admin Made' },
      app_metadata: { plan: 'pro', provider: 'email', providers: ['email'] },
    })
    expect(user.email_confirmed_at).toBeTruthy()
    const profile = await stack.db.query<{ display_name: string }>(
      'select display_name from public.user_profiles where user_id = $1',
      [user.id],
    )
    expect(profile.rows[0]?.display_name).toBe('Admin Made')

    const duplicate = await admin.createUser({
      email: 'admin-made@example.com',
      password: 'hunter22',
    })
    expect(duplicate.error).toMatchObject({ status: 422, code: 'email_exists' })

    const fetched = await admin.getUserById(user.id)
    expect(fetched.data.user?.id).toBe(user.id)
    const updated = await admin.updateUserById(user.id, {
      user_metadata: { full_name: 'Renamed' },
      password: 'another-pass',
    })
    expect(updated.data.user?.user_metadata).toEqual({ full_name: 'Renamed' })
    expect(
      (
        await stack
          .client()
          .auth.signInWithPassword({ email: 'admin-made@example.com', password: 'another-pass' })
      ).error,
    ).toBeNull()

    await admin.createUser({ email: 'second@example.com', password: 'hunter22' })
    const page = await admin.listUsers({ page: 1, perPage: 1 })
    expect(page.error).toBeNull()
    expect(page.data.users).toHaveLength(1)
    expect(page.data).toMatchObject({ aud: 'authenticated', total: 2, nextPage: 2, lastPage: 2 })

    expect((await admin.deleteUser(user.id)).error).toBeNull()
    const gone = await admin.getUserById(user.id)
    expect(gone.error).toMatchObject({ status: 404, code: 'user_not_found' })
    expect(
      (await stack.db.query('select 1 from public.user_profiles where user_id = $1', [user.id]))
        .rows,
    ).toHaveLength(0)
  })

  it('generateLink returns properties with hashed_token that verifyOtp and GET /verify accept', async () => {
    const admin = stack.admin().auth.admin
    await stack.createUser('linked@example.com')
    const { data, error } = await admin.generateLink({
      type: 'magiclink',
      email: 'linked@example.com',
      options: { redirectTo: `${SITE_URL}/auth/callback` },
    })
    expect(error).toBeNull()
    expect(data.user?.email).toBe('linked@example.com')
    expect(data.properties).toMatchObject({
      verification_type: 'magiclink',
      redirect_to: `${SITE_URL}/auth/callback`,
      email_otp: expect.stringMatching(/^\d{6}$/),
      hashed_token: expect.stringMatching(/^[0-9a-f]{56}$/),
    })
    expect(data.properties!.action_link).toContain(
      `/auth/v1/verify?token=${data.properties!.hashed_token}&type=magiclink`,
    )
    expect(await stack.emulator.inbox.latestFor('linked@example.com')).toBeUndefined()

    const verified = await stack
      .client()
      .auth.verifyOtp({ type: 'magiclink', token_hash: data.properties!.hashed_token })
    expect(verified.error).toBeNull()

    const signup = await admin.generateLink({
      type: 'signup',
      email: 'generated@example.com',
      password: 'hunter22',
    })
    expect(signup.data.properties?.verification_type).toBe('signup')
    // Implicit flow: GET /verify puts the session in the fragment.
    const redirect = await fetch(signup.data.properties!.action_link, { redirect: 'manual' })
    expect(redirect.status).toBe(303)
    const fragment = new URLSearchParams(locationOf(redirect).hash.slice(1))
    expect(fragment.get('access_token')).toBeTruthy()
    expect(fragment.get('type')).toBe('signup')

    const recoveryForNobody = await admin.generateLink({
      type: 'recovery',
      email: 'nobody@example.com',
    })
    expect(recoveryForNobody.error).toMatchObject({ status: 404, code: 'user_not_found' })
  })

  it('refuses non-admin callers: anon key 403 not_admin, no bearer 401', async () => {
    const anonAdmin = createClient(stack.emulator.url, LOCAL_ANON_KEY, {
      auth: { persistSession: false },
    }).auth.admin
    const { error } = await anonAdmin.listUsers()
    expect(error).toMatchObject({ status: 403, code: 'not_admin' })
    const response = await raw(stack.emulator, '/auth/v1/admin/users', {
      headers: { apikey: LOCAL_ANON_KEY, 'x-supabase-api-version': '2024-01-01' },
    })
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ code: 'no_authorization' })
  })
})

describe('discovery endpoints', () => {
  it('serves JWKS and health without an API key', async () => {
    const jwks = await raw(stack.emulator, '/auth/v1/.well-known/jwks.json')
    expect(await jwks.json()).toMatchObject({ keys: [{ kty: 'EC', alg: 'ES256', crv: 'P-256' }] })
    const health = await raw(stack.emulator, '/auth/v1/health')
    expect(await health.json()).toMatchObject({ name: 'GoTrue' })
  })
})
