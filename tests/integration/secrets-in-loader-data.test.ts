import { readdirSync } from 'node:fs'
import path from 'node:path'

import { SignJWT } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'

import { PROVIDER_SETTINGS } from '../../app/billing/provider-settings'
import { resetEnvForTests } from '../../app/env.server'
import { PROJECT_ROOT } from '../local-stack/database'
import { LOCAL_JWT_SECRET } from '../local-stack/supabase/keys'
import { callAt } from './auth-support'
import { createSignedInUser, testAppForFile } from './harness'

// No loader hands a server secret to the browser, for a visitor or a signed-in subscriber.
const ROUTES_DIR = path.join(PROJECT_ROOT, 'app/routes')
const CANARY = `canary${Date.now().toString(36)}`
/** A provider's column as a key (`"stripe_customer_id":`): pages get only the fields they show. */
const PROVIDER_COLUMN = new RegExp(`"(${PROVIDER_SETTINGS.map(({ id }) => id).join('|')})_\\w+":`)

type Loader = (args: { request: Request; params: object; context: object }) => unknown
const loaders: { file: string; path: string; loader: Loader }[] = []
for (const file of readdirSync(ROUTES_DIR).sort()) {
  if (!/\.tsx?$/.test(file) || /\.test\.tsx?$/.test(file)) continue
  const module = (await import(/* @vite-ignore */ path.join(ROUTES_DIR, file))) as {
    loader?: Loader
  }
  if (!module.loader) continue
  const segments = file
    .replace(/\.tsx?$/, '')
    .split('.')
    .filter((segment) => segment !== '_index')
    .map((segment) => (segment === '$' ? 'no-such-page' : segment.replace(/_$/, '')))
  loaders.push({ file, path: `/${segments.join('/')}`, loader: module.loader })
}
const root = (await import('../../app/root')) as { loader: Loader }
loaders.push({ file: 'root.tsx', path: '/', loader: root.loader })

const app = testAppForFile()
let secrets: Record<string, string>

beforeAll(async () => {
  // A service-role key the emulator accepts (signed with its secret) that is still unique.
  const serviceRoleKey = await new SignJWT({ role: 'service_role', canary: CANARY })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('supabase-demo')
    .sign(new TextEncoder().encode(LOCAL_JWT_SECRET))
  secrets = {
    SUPABASE_SERVICE_ROLE_KEY: serviceRoleKey,
    STRIPE_SECRET_KEY: `sk_test_${CANARY}_stripe_secret`,
    STRIPE_WEBHOOK_SECRET: `whsec_${CANARY}_stripe_webhook`,
    POLAR_ACCESS_TOKEN: `polar_oat_${CANARY}_polar_token`,
    POLAR_WEBHOOK_SECRET: `polar_whs_${CANARY}_polar_webhook`,
  }
  Object.assign(process.env, secrets)
  resetEnvForTests()
})

async function seedSubscriber() {
  const user = await createSignedInUser(app)
  await app.stack.database.query(
    `insert into public.user_subscriptions (user_id, provider, status, plan_name, stripe_customer_id, stripe_subscription_id)
     values ($1, 'stripe', 'active', 'Pro', 'cus_secret_test', 'sub_secret_test')`,
    [user.id],
  )
  await app.stack.database.query(
    `insert into public.payment_history (user_id, provider, provider_payment_id, amount, currency, status)
     values ($1, 'stripe', 'in_secret_test', 2900, 'usd', 'paid')`,
    [user.id],
  )
  return user
}

describe('loader data holds no server secret', () => {
  it('finds the loaders (sanity check of the discovery)', () => {
    expect(loaders.map((entry) => entry.file)).toEqual(
      expect.arrayContaining([
        'root.tsx',
        'dashboard.tsx',
        'dashboard._index.tsx',
        'dashboard.settings.billing.tsx',
        'dashboard.settings.account.tsx',
        'pricing.tsx',
        'api.portal.ts',
      ]),
    )
  })

  it.each([
    ['a visitor', false],
    ['a signed-in subscriber', true],
  ])('for %s', async (_name, signedIn) => {
    const cookie = signedIn ? (await seedSubscriber()).cookie : undefined
    let checked = 0
    const statuses: Record<string, number> = {}
    for (const entry of loaders) {
      const outcome = await callAt(app, entry.loader, entry.path, { cookie }).catch(
        (error: unknown) => ({ status: 500, headers: new Headers(), data: String(error) }),
      )
      const text = `${JSON.stringify(outcome.data)}\n${[...outcome.headers].join('\n')}`
      for (const [name, value] of Object.entries(secrets)) {
        expect(text.includes(value), `${entry.file} exposes ${name}`).toBe(false)
      }
      expect(text, entry.file).not.toContain(CANARY)
      expect(text, entry.file).not.toMatch(PROVIDER_COLUMN)
      statuses[entry.file] = outcome.status
      checked++
    }
    expect(checked).toBe(loaders.length)
    // The signed-in pass really read the subscriber's private pages.
    if (signedIn) {
      expect(statuses['dashboard.settings.billing.tsx']).toBe(200)
      expect(statuses['dashboard.settings.account.tsx']).toBe(200)
    }
  })
})
