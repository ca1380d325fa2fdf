import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { CHECKOUT_LOOKUP_RATE_LIMIT } from '../../app/billing/checkout-status.server'
import { catalogPlan } from '../../app/billing/plans'
import { resetEnvForTests } from '../../app/env.server'
import { MemoryRateLimitStore, setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import { POLAR_CHECKOUT_RATE_LIMIT } from '../../app/routes/api.checkout'
import * as success from '../../app/routes/success'
import { appRequest, callRoute } from './auth-support'
import { createSignedInUser, emulatorStripe, startTestApp, type TestApp } from './harness'

/**
 * What anonymous callers can make the app ask the payment providers: a Polar checkout needs
 * an account (as Stripe's does), checkouts are limited per client, and so are the success
 * page's provider lookups. Over HTTP against the app's real routes and the stand-ins.
 */
let app: TestApp
const PRO = catalogPlan('pro').polar.productId

beforeAll(async () => {
  app = await startTestApp()
  // One proxy in front: the client is the last X-Forwarded-For entry.
  process.env.TRUSTED_PROXY_COUNT = '1'
  resetEnvForTests()
})
afterAll(async () => {
  delete process.env.TRUSTED_PROXY_COUNT
  resetEnvForTests()
  setRateLimitStore(undefined)
  await app.close()
})
beforeEach(() => setRateLimitStore(new MemoryRateLimitStore()))

function polarCheckout(ip: string, query: string, headers: Record<string, string> = {}) {
  return fetch(`${app.url}/api/checkout?${query}`, {
    redirect: 'manual',
    headers: { 'X-Forwarded-For': `203.0.113.250, ${ip}`, ...headers },
  })
}
const checkoutCount = () => app.stack.polar.state.checkouts.size

describe('GET /api/checkout needs an account', () => {
  it('an anonymous caller gets 401 and no checkout is created, whatever the query', async () => {
    const before = checkoutCount()
    for (const query of [
      `products=${PRO}`,
      `products=${PRO}&customerEmail=someone%40example.com`,
      `products=${PRO}&metadata=${encodeURIComponent('{"campaign":"spring"}')}`,
    ]) {
      const response = await polarCheckout('198.51.100.1', query)
      expect(response.status).toBe(401)
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(await response.json()).toEqual({ error: 'Sign in to subscribe' })
    }
    expect(checkoutCount()).toBe(before)
  })
})

describe('GET /api/checkout is limited per client', () => {
  it('past the budget: 429 with Retry-After, no checkout at Polar; another client is not affected', async () => {
    const user = await createSignedInUser(app)
    const cookie = { cookie: user.cookie }
    const { limit } = POLAR_CHECKOUT_RATE_LIMIT.client
    for (let i = 0; i < limit; i++) {
      expect((await polarCheckout('198.51.100.7', `products=${PRO}`, cookie)).status).toBe(307)
    }
    const before = checkoutCount()
    const limited = await polarCheckout('198.51.100.7', `products=${PRO}`, cookie)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.headers.get('cache-control')).toBe('no-store')
    expect(await limited.json()).toEqual({
      error: expect.stringMatching(/^Too many checkouts started\. Please wait \d+ minutes?/),
    })
    expect(checkoutCount()).toBe(before)
    expect((await polarCheckout('198.51.100.8', `products=${PRO}`, cookie)).status).toBe(307)
  })
})

describe('/success: provider lookups are limited per client', () => {
  async function stripeSession() {
    const stripe = emulatorStripe(app)
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: catalogPlan('pro').stripe.priceId, quantity: 1 }],
      success_url: `${app.url}/success?session_id={CHECKOUT_SESSION_ID}`,
    })
    return session.id
  }
  function view(ip: string, query: string) {
    const request = appRequest(app, `/success${query}`)
    request.headers.set('X-Forwarded-For', `203.0.113.250, ${ip}`)
    return callRoute(success.loader, request)
  }

  it('past the budget the page answers 429 "confirming" without asking Stripe, and stops reloading', async () => {
    const sessionId = await stripeSession()
    const { limit } = CHECKOUT_LOOKUP_RATE_LIMIT.client
    for (let i = 0; i < limit; i++) {
      const page = await view('192.0.2.1', `?session_id=${sessionId}`)
      expect(page.status).toBe(200)
      expect(page.data).toMatchObject({ status: 'open' })
    }
    const limited = await view('192.0.2.1', `?session_id=${sessionId}`)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.data).toEqual({ status: 'confirming', recheck: null, summary: null })
    // A made-up id costs a lookup too; a page that names no checkout asks nobody.
    expect((await view('192.0.2.1', '?checkout_id=made-up')).status).toBe(429)
    expect((await view('192.0.2.1', '')).status).toBe(200)
    // Another client still gets its answer.
    const other = await view('192.0.2.2', `?session_id=${sessionId}`)
    expect(other.status).toBe(200)
    expect(other.data).toMatchObject({ status: 'open' })
  })
})
