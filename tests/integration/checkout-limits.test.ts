import { randomUUID } from 'node:crypto'

import { beforeEach, describe, expect, it } from 'vitest'

import { CHECKOUT_LOOKUP_RATE_LIMIT } from '../../app/billing/checkout-status.server'
import { catalogPlan } from '../../app/billing/plans.test-support'
import { PROVIDER_CALL_LIMITS } from '../../app/billing/registry.server'
import { MemoryRateLimitStore, setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import * as billing from '../../app/routes/dashboard.settings.billing'
import * as changePlanPage from '../../app/routes/dashboard.settings.billing_.change-plan'
import * as success from '../../app/routes/success'
import { appRequest, callAt, callRoute, fromClient } from './auth-support'
import { createSignedInUser, emulatorStripe, testAppForFile } from './harness'

// What anonymous callers can make the app ask the payment providers.
// One proxy in front: the client is the last X-Forwarded-For entry.
const app = testAppForFile({ env: { TRUSTED_PROXY_COUNT: '1' } })
const PRO = catalogPlan('pro').polar.productId

beforeEach(() => setRateLimitStore(new MemoryRateLimitStore()))

function polarCheckout(ip: string, query: string, headers: Record<string, string> = {}) {
  return fetch(`${app.url}/api/checkout?${query}`, {
    redirect: 'manual',
    headers: { 'X-Forwarded-For': `203.0.113.250, ${ip}`, ...headers },
  })
}
const checkoutCount = () => app.stack.polar.state.checkouts.size
type User = Awaited<ReturnType<typeof createSignedInUser>>

it('GET /api/checkout needs an account: an anonymous caller gets 401 and no checkout is created, whatever the query', async () => {
  const before = checkoutCount()
  for (const query of [
    `products=${PRO}`,
    `products=${PRO}&customerEmail=someone%40example.com`,
    `products=${PRO}&metadata=${encodeURIComponent('{"campaign":"spring"}')}`,
    `products=${PRO}&metadata=${encodeURIComponent(`{"user_id":"${randomUUID()}"}`)}`,
  ]) {
    const response = await polarCheckout('198.51.100.1', query)
    expect(response.status).toBe(401)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({ error: 'Sign in to subscribe' })
  }
  expect(checkoutCount()).toBe(before)
})

describe('actions that call a payment provider are budgeted per account and per client', () => {
  const { account, client } = PROVIDER_CALL_LIMITS
  const proPrice = { price_id: catalogPlan('pro').stripe.priceId }
  const post = (path: string, ip: string, cookie: string, form?: Record<string, string>) =>
    fetch(`${app.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'X-Forwarded-For': `203.0.113.250, ${ip}`, cookie },
      body: form && new URLSearchParams(form),
    })
  const expectLimited = async (response: Response) => {
    expect(response.status).toBe(429)
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({
      error: expect.stringMatching(/^Too many billing requests\. Please wait 1 minute/),
    })
  }

  it('a burst of 25 checkouts from one account opens a handful of sessions at Stripe', async () => {
    const user = await createSignedInUser(app)
    const checkout = () => post('/api/checkout_sessions', '198.51.100.20', user.cookie, proPrice)
    const burst = await Promise.all(Array.from({ length: 25 }, checkout))
    const limited = burst.filter((response) => response.status !== 303)
    expect(limited).toHaveLength(25 - account.limit)
    for (const response of limited) await expectLimited(response)
    const stripe = emulatorStripe(app)
    const [customer] = (await stripe.customers.list({ email: user.email })).data
    const sessions = await stripe.checkout.sessions.list({ customer: customer.id, limit: 100 })
    expect(sessions.data.length).toBeLessThanOrEqual(account.limit)
  })

  it('the accounts of one client share its budget; another client keeps its own', async () => {
    const users = await Promise.all(
      Array.from({ length: client.limit + 1 }, () => createSignedInUser(app)),
    )
    const portal = (ip: string, user: User) => post('/api/customer_portal', ip, user.cookie)
    for (const user of users.slice(0, client.limit))
      expect((await portal('198.51.100.21', user)).status).toBe(404)
    await expectLimited(await portal('198.51.100.21', users[client.limit]))
    expect((await portal('198.51.100.22', users[client.limit])).status).toBe(404)
  })

  it('past the budget each of them answers 429 in its own shape, asking no provider', async () => {
    const user = await createSignedInUser(app)
    const ip = '198.51.100.23'
    for (let i = 0; i < account.limit; i++)
      expect((await post('/api/customer_portal', ip, user.cookie)).status).toBe(404)
    const polarCheckouts = checkoutCount()
    await expectLimited(await post('/api/checkout_sessions', ip, user.cookie, proPrice))
    await expectLimited(await post('/api/customer_portal', ip, user.cookie))
    await expectLimited(await polarCheckout(ip, `products=${PRO}`, { cookie: user.cookie }))
    const get = (path: string) =>
      fetch(`${app.url}${path}`, {
        redirect: 'manual',
        headers: { 'X-Forwarded-For': `203.0.113.250, ${ip}`, cookie: user.cookie },
      })
    await expectLimited(await get('/api/portal'))
    expect((await get('/subscribe/pro')).headers.get('location')).toBe(
      '/pricing?notice=checkout-failed',
    )
    const page = (path: string, form?: Record<string, string>) =>
      fromClient(ip, appRequest(app, path, { cookie: user.cookie, form }))
    const message = expect.stringMatching(/^Too many billing requests/)
    for (const intent of ['cancel', 'resume', 'pay', 'update_payment_method', '']) {
      const answer = await callRoute(
        billing.action,
        page('/dashboard/settings/billing', { intent }),
      )
      expect(answer).toMatchObject({ status: 429, data: { error: message } })
      expect(Number(answer.headers.get('Retry-After'))).toBeGreaterThan(0)
    }
    const changePlan = '/dashboard/settings/billing/change-plan?plan=starter'
    expect(await callRoute(changePlanPage.loader, page(changePlan))).toMatchObject({
      status: 429,
      data: { kind: 'unavailable', message },
    })
    expect(
      await callRoute(changePlanPage.action, page(changePlan, { plan: 'starter' })),
    ).toMatchObject({ status: 429, data: { error: message } })
    expect(checkoutCount()).toBe(polarCheckouts)
    expect((await emulatorStripe(app).customers.list({ email: user.email })).data).toEqual([])
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
  const view = (ip: string, query: string) =>
    callAt(app, success.loader, `/success${query}`, { ip })

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
    const other = await view('192.0.2.2', `?session_id=${sessionId}`)
    expect(other.status).toBe(200)
    expect(other.data).toMatchObject({ status: 'open' })
  })
})
