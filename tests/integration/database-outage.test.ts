import { afterEach, beforeAll, describe, expect, it } from 'vitest'

import { resetDatabaseCheckForTests } from '../../app/lib/database/database-availability.server'
import * as billing from '../../app/routes/dashboard.settings.billing'
import { getBillingOverview } from '../../app/subscriptions/billing-overview.server'
import { callAt, cookieMap, readSession } from './auth-support'
import { createSignedInUser, subscriptionRowOf, testAppForFile } from './harness'
import {
  polarEvent,
  postPolarEvent,
  subscriptionObject as polarSubscription,
} from './polar-fixtures'
import {
  postStripeEvent,
  stripeEvent,
  subscriptionObject as stripeSubscription,
} from './stripe-fixtures'

// The database unreachable under a running app; the real restart under load is the chaos soak
// (`npm run soak -- --chaos`).
const app = testAppForFile()

const UNAVAILABLE = { status: 503, body: { error: 'Service temporarily unavailable' } }
const OK = { status: 200, body: { received: true } }

beforeAll(() => {
  app.stack.polar.setWebhookUrl(undefined)
})
afterEach(() => {
  app.setDatabaseDown(false)
  resetDatabaseCheckForTests()
})

const subscriptionOf = (userId: string) => subscriptionRowOf(app, userId)

describe('webhooks while the database is unreachable', () => {
  it('Stripe: 503 with Retry-After, nothing written; the same delivery applies once it is back', async () => {
    const user = await createSignedInUser(app)
    const event = stripeEvent(
      'customer.subscription.created',
      stripeSubscription({ userId: user.id }),
    )
    const body = JSON.stringify(event)
    const { default: Stripe } = await import('stripe')
    app.setDatabaseDown(true)
    const down = await fetch(`${app.url}/api/webhooks/stripe`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret: app.stack.env.STRIPE_WEBHOOK_SECRET,
        }),
      },
      body,
    })
    expect({ status: down.status, body: await down.json() }).toEqual(UNAVAILABLE)
    expect(down.headers.get('retry-after')).toBe('5')
    app.setDatabaseDown(false)
    expect(await subscriptionOf(user.id)).toBeNull()
    expect(await postStripeEvent(app.url, event)).toEqual(OK)
    expect(await subscriptionOf(user.id)).toMatchObject({ status: 'active', provider: 'stripe' })
    expect(await postStripeEvent(app.url, event)).toEqual(OK)
  })

  it('Polar: 503, nothing written; the retry applies it', async () => {
    const user = await createSignedInUser(app)
    const event = polarEvent('subscription.created', polarSubscription({ userId: user.id }))
    app.setDatabaseDown(true)
    const down = await postPolarEvent(app.url, event)
    expect({ status: down.status, body: down.body }).toEqual(UNAVAILABLE)
    app.setDatabaseDown(false)
    expect(await subscriptionOf(user.id)).toBeNull()
    const retry = await postPolarEvent(app.url, event, { id: down.id })
    expect({ status: retry.status, body: retry.body }).toEqual(OK)
    expect(await subscriptionOf(user.id)).toMatchObject({ provider: 'polar' })
  })
})

describe('/healthz reports the database', () => {
  async function health(path = '/healthz') {
    const response = await fetch(`${app.url}${path}`)
    return { status: response.status, body: await response.json() }
  }

  it('ok, then unavailable (503), then ok again without a restart', async () => {
    expect(await health()).toEqual({
      status: 200,
      body: { ok: true, database: 'ok', migrations: 'current' },
    })
    app.setDatabaseDown(true)
    resetDatabaseCheckForTests()
    expect(await health()).toEqual({
      status: 503,
      body: { ok: false, database: 'unavailable' },
    })
    // Liveness does no I/O: the process is fine, restarting it would not help.
    expect(await health('/healthz?live')).toEqual({ status: 200, body: { ok: true } })
    app.setDatabaseDown(false)
    resetDatabaseCheckForTests()
    expect(await health()).toEqual({
      status: 200,
      body: { ok: true, database: 'ok', migrations: 'current' },
    })
  })
})

describe('pages while the database is unreachable', () => {
  it('a signed-in page answers 503 with Retry-After and a plain message, and works again after', async () => {
    const user = await createSignedInUser(app)
    app.setDatabaseDown(true)
    const down = await callAt(app, billing.loader, '/dashboard/settings/billing', {
      cookie: user.cookie,
    })
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toBe('5')
    expect(String(down.data)).not.toMatch(/ECONNREFUSED|at .*\.ts/)
    app.setDatabaseDown(false)
    const up = await callAt(app, billing.loader, '/dashboard/settings/billing', {
      cookie: user.cookie,
    })
    expect(up.status).toBe(200)
  })

  it("a page read that fails on the database throws Remix's data(…, 503) (the root boundary renders it)", async () => {
    const user = await createSignedInUser(app)
    // The page reads as the user, with the access token from their session cookie.
    const asUser = { accessToken: readSession(cookieMap(user.cookie))!.access_token }
    app.setDatabaseDown(true)
    const thrown = await getBillingOverview(asUser).catch((error: unknown) => error)
    expect(thrown).toMatchObject({ type: 'DataWithResponseInit', init: { status: 503 } })
    app.setDatabaseDown(false)
    await expect(getBillingOverview(asUser)).resolves.toMatchObject({ total: 0 })
  })
})
