import { afterAll, beforeAll, expect, it } from 'vitest'

import { resetDatabaseCheckForTests } from '../../app/lib/database/database-availability.server'
import { SUITE_AUTH_LIMITS } from '../local-stack/stack'
import { LOCAL_SERVICE_ROLE_KEY } from '../local-stack/supabase/keys'
import { adminClient, createSignedInUser, startTestApp, type TestApp } from './harness'
import { postStripeEvent, stripeEvent, subscriptionObject } from './stripe-fixtures'

// PostgREST's pool full (2 connections, 300 ms acquisition timeout, both held): every request
// is answered within the timeout, never a 500, and the same delivery applies once it frees.
let app: TestApp
const ACQUISITION_TIMEOUT_MS = 300

beforeAll(async () => {
  app = await startTestApp({
    supabaseAuth: {
      ...SUITE_AUTH_LIMITS,
      restPool: { size: 2, acquisitionTimeoutMs: ACQUISITION_TIMEOUT_MS },
    },
  })
  app.stack.polar.setWebhookUrl(undefined)
})
afterAll(async () => {
  app?.setDatabaseStalled(false)
  await app?.close()
})

/** A slow call of another client of the project: it holds one of the pool's connections. */
function holdConnection() {
  return fetch(`${app.stack.supabase.url}/rest/v1/rpc/session_is_active`, {
    method: 'POST',
    headers: {
      apikey: LOCAL_SERVICE_ROLE_KEY,
      authorization: `Bearer ${LOCAL_SERVICE_ROLE_KEY}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      p_session_id: '00000000-0000-0000-0000-000000000000',
      p_user_id: '00000000-0000-0000-0000-000000000000',
    }),
  })
}

async function timed<T>(run: () => Promise<T>) {
  const startedAt = Date.now()
  const value = await run()
  return { value, ms: Date.now() - startedAt }
}

it('a full PostgREST pool: pages and /healthz answer 503 with Retry-After, a webhook 503, all within the timeout; nothing is lost', async () => {
  const user = await createSignedInUser(app)
  const event = stripeEvent(
    'customer.subscription.created',
    subscriptionObject({ userId: user.id }),
  )
  app.setDatabaseStalled(true)
  const holders = [holdConnection(), holdConnection()]
  await new Promise((resolve) => setTimeout(resolve, 100))

  const webhook = await timed(() => postStripeEvent(app.url, event))
  expect(webhook.value).toEqual({
    status: 503,
    body: { error: 'Service temporarily unavailable' },
  })

  const page = await timed(async () => {
    const answer = await fetch(`${app.url}/dashboard`, {
      headers: { cookie: user.cookie },
      redirect: 'manual',
    })
    return {
      status: answer.status,
      retryAfter: answer.headers.get('retry-after'),
      body: await answer.text(),
    }
  })
  expect(page.value.status).toBe(503)
  expect(page.value.retryAfter).toBe('5')
  expect(page.value.body).not.toMatch(/PGRST003|at .*\.ts/)

  resetDatabaseCheckForTests()
  const health = await timed(async () => {
    const answer = await fetch(`${app.url}/healthz`)
    return { status: answer.status, retryAfter: answer.headers.get('retry-after') }
  })
  expect(health.value).toEqual({ status: 503, retryAfter: '5' })

  // Within the acquisition timeout and the app's own work: never the app's 5 s call timeout.
  for (const { ms } of [webhook, page, health])
    expect(ms).toBeLessThan(ACQUISITION_TIMEOUT_MS + 2_000)

  // The pool frees: the other client's calls finish, and the provider's retry applies.
  app.setDatabaseStalled(false)
  for (const held of await Promise.all(holders)) expect(held.status).toBe(200)
  resetDatabaseCheckForTests()
  expect(await postStripeEvent(app.url, event)).toEqual({ status: 200, body: { received: true } })
  const { data } = await adminClient(app)
    .from('user_subscriptions')
    .select('status, provider')
    .eq('user_id', user.id)
    .single()
  expect(data).toEqual({ status: 'active', provider: 'stripe' })
})
