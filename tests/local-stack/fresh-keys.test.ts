import { createClient } from '@supabase/supabase-js'
import Stripe from 'stripe'
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

const stripeWith = (key: string) => {
  const url = new URL(stack.env.STRIPE_API_URL)
  return new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http' })
}

describe("the local stack's fresh keys", () => {
  it('are new for each run, in the shapes the services issue', () => {
    expect(stack.env.STRIPE_SECRET_KEY).toMatch(/^sk_test_/)
    expect(stack.env.STRIPE_WEBHOOK_SECRET).toMatch(/^whsec_/)
    expect(stack.env.POLAR_ACCESS_TOKEN).toMatch(/^polar_oat_/)
    expect(stack.env.SUPABASE_ANON_KEY.split('.')).toHaveLength(3)
    for (const [name, published] of [
      ['SUPABASE_ANON_KEY', LOCAL_STACK_KEYS.supabaseAnonKey],
      ['SUPABASE_SERVICE_ROLE_KEY', LOCAL_STACK_KEYS.supabaseServiceRoleKey],
      ['STRIPE_SECRET_KEY', LOCAL_STACK_KEYS.stripeSecretKey],
      ['STRIPE_WEBHOOK_SECRET', LOCAL_STACK_KEYS.stripeWebhookSecret],
      ['POLAR_ACCESS_TOKEN', LOCAL_STACK_KEYS.polarAccessToken],
      ['POLAR_WEBHOOK_SECRET', LOCAL_STACK_KEYS.polarWebhookSecret],
    ])
      expect(stack.env[name], name).not.toBe(published)
  })

  it('Stripe: the run key is accepted, the published one refused', async () => {
    expect((await stripeWith(stack.env.STRIPE_SECRET_KEY).prices.list()).data.length).toBe(2)
    await expect(stripeWith(LOCAL_STACK_KEYS.stripeSecretKey).prices.list()).rejects.toMatchObject({
      statusCode: 401,
    })
  })

  it('Supabase Auth: the run keys pass the gateway, the published ones do not', async () => {
    const settings = (key: string) =>
      fetch(`${stack.env.SUPABASE_URL}/auth/v1/settings`, { headers: { apikey: key } })
    expect((await settings(stack.env.SUPABASE_ANON_KEY)).status).toBe(200)
    expect((await settings(LOCAL_STACK_KEYS.supabaseAnonKey)).status).toBe(401)
    const admin = createClient(stack.env.SUPABASE_URL, stack.env.SUPABASE_SERVICE_ROLE_KEY, {
      auth: { persistSession: false, autoRefreshToken: false },
    })
    const { error } = await admin.auth.admin.listUsers()
    expect(error).toBeNull()
  })

  it('Polar: the run token is accepted, the published one refused', async () => {
    // Subscriptions: within the product token's scopes (products are not).
    const subscriptions = (token: string) =>
      fetch(`${stack.env.POLAR_API_URL}/v1/subscriptions/`, {
        headers: { authorization: `Bearer ${token}` },
      })
    expect((await subscriptions(stack.env.POLAR_ACCESS_TOKEN)).status).toBe(200)
    expect((await subscriptions(LOCAL_STACK_KEYS.polarAccessToken)).status).toBe(401)
  })
})
