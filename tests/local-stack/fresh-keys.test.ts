import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_CATALOG } from './catalog'
import { LOCAL_STACK_KEYS } from './defaults'
import { type LocalStack, startLocalStack } from './stack'

// A stack started with `keys: 'fresh'` (the deploy rehearsal's) accepts only the keys it made.
let stack: LocalStack
beforeAll(async () => {
  stack = await startLocalStack({
    siteUrl: 'http://localhost:1',
    catalog: LOCAL_CATALOG,
    keys: 'fresh',
  })
}, 60_000)
afterAll(async () => {
  await stack?.close()
})

describe("the local stack's fresh keys", () => {
  it('are new for each run, in the shapes the services issue', () => {
    expect(stack.env.STRIPE_SECRET_KEY).toMatch(/^sk_test_/)
    expect(stack.env.STRIPE_WEBHOOK_SECRET).toMatch(/^whsec_/)
    expect(stack.env.POLAR_ACCESS_TOKEN).toMatch(/^polar_oat_/)
    expect(stack.env.SUPABASE_ANON_KEY.split('.')).toHaveLength(3)
    const published = new Set<string>(Object.values(LOCAL_STACK_KEYS))
    const keys = Object.keys(stack.env).filter((name) => /KEY|SECRET|TOKEN/.test(name))
    expect(keys).toHaveLength(6)
    for (const name of keys) expect(published.has(stack.env[name]), name).toBe(false)
  })

  const bearer = (url: string) => (key: string) =>
    fetch(url, { headers: { apikey: key, authorization: `Bearer ${key}` } })
  it.each<[string, keyof typeof LOCAL_STACK_KEYS, (env: Record<string, string>) => string]>([
    ['STRIPE_SECRET_KEY', 'stripeSecretKey', (env) => `${env.STRIPE_API_URL}/v1/prices`],
    ['SUPABASE_ANON_KEY', 'supabaseAnonKey', (env) => `${env.SUPABASE_URL}/auth/v1/settings`],
    [
      'SUPABASE_SERVICE_ROLE_KEY',
      'supabaseServiceRoleKey',
      (env) => `${env.SUPABASE_URL}/auth/v1/admin/users`,
    ],
    // Subscriptions: within the product token's scopes (products are not).
    ['POLAR_ACCESS_TOKEN', 'polarAccessToken', (env) => `${env.POLAR_API_URL}/v1/subscriptions/`],
  ])('%s: the run key is accepted, the published one refused', async (name, published, url) => {
    const get = bearer(url(stack.env))
    expect((await get(stack.env[name])).status).toBe(200)
    expect((await get(LOCAL_STACK_KEYS[published])).status).toBe(401)
  })
})
