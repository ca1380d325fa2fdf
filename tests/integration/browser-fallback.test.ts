import http from 'node:http'

import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { adminClient, createSignedInUser, emulatorStripe, testAppForFile } from './harness'

// The API routes keep their JSON for scripts; a browser navigation (Sec-Fetch-Mode: navigate)
// always gets a redirect to a page.
const app = testAppForFile({ polarInvoiceDelayMs: 0 })
afterEach(() => {
  app.stack.stripe.clearFaults()
  app.stack.polar.clearFaults()
})

/**
 * Node's fetch sets `Sec-Fetch-Mode: cors` on every request whatever the caller says, so
 * these requests go through node:http, which sends the headers a browser would.
 */
function request(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: init.method ?? 'GET', headers: init.headers },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const headers = new Headers()
          for (const [name, value] of Object.entries(res.headers))
            for (const one of [value ?? []].flat()) headers.append(name, one)
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode, headers }))
        })
      },
    )
    req.on('error', reject)
    req.end(init.body)
  })
}

const NAVIGATE = { 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'same-origin' }
const STRIPE_PRICE = catalogPlan('pro').stripe.priceId
const POLAR_PRODUCT = catalogPlan('pro').polar.productId

function postCheckoutSessions(headers: Record<string, string>) {
  return request(`${app.url}/api/checkout_sessions`, {
    method: 'POST',
    headers: { origin: app.url, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ price_id: STRIPE_PRICE }).toString(),
  })
}
function getPolarCheckout(headers: Record<string, string>, userId?: string) {
  const query = new URLSearchParams({
    products: POLAR_PRODUCT,
    ...(userId ? { metadata: JSON.stringify({ user_id: userId }) } : {}),
  })
  return request(`${app.url}/api/checkout?${query}`, { headers })
}
function postCustomerPortal(headers: Record<string, string>) {
  return request(`${app.url}/api/customer_portal`, {
    method: 'POST',
    headers: { origin: app.url, ...headers },
  })
}
function getPolarPortal(headers: Record<string, string>) {
  return request(`${app.url}/api/portal`, { headers })
}

const signInBack = (back: string) =>
  `/sign-in?${new URLSearchParams({ redirectTo: back, notice: 'sign-in-to-continue' })}`

describe('signed out', () => {
  it.each([
    ['POST /api/checkout_sessions', postCheckoutSessions, '/pricing', 'Authentication required'],
    [
      'POST /api/customer_portal',
      postCustomerPortal,
      '/dashboard/settings/billing',
      'Unauthorized',
    ],
    ['GET /api/portal', getPolarPortal, '/dashboard/settings/billing', 'Unauthorized'],
  ] as const)(
    '%s: a browser goes to sign-in and back, a script gets the 401',
    async (_label, call, back, error) => {
      const browser = await call(NAVIGATE)
      expect([browser.status, browser.headers.get('location')]).toEqual([303, signInBack(back)])
      expect(await browser.text()).toBe('')

      const script = await call({})
      expect(script.status).toBe(401)
      expect(await script.json()).toEqual({ error })
    },
  )

  it.each([
    ['without a user id (an account is needed all the same)', undefined],
    ['with a user id', 'b9a3c1de-0000-4000-8000-000000000001'],
  ])('GET /api/checkout %s: a browser goes to sign-in and back to pricing', async (_l, userId) => {
    const browser = await getPolarCheckout(NAVIGATE, userId)
    expect([browser.status, browser.headers.get('location')]).toEqual([303, signInBack('/pricing')])
  })
})

describe('signed in', () => {
  it('a provider failure at checkout: a browser goes back to pricing with a message', async () => {
    const user = await createSignedInUser(app)
    app.stack.stripe.injectFault({
      method: 'POST',
      path: '/v1/checkout/sessions',
      status: 500,
      count: 3,
    })
    const stripe = await postCheckoutSessions({ ...NAVIGATE, cookie: user.cookie })
    expect(stripe.status).toBe(303)
    expect(stripe.headers.get('location')).toBe('/pricing?notice=checkout-failed')

    app.stack.polar.addFault({ method: 'POST', path: '/v1/checkouts', status: 500, count: 1 })
    const polar = await getPolarCheckout({ ...NAVIGATE, cookie: user.cookie }, user.id)
    expect(polar.status).toBe(303)
    expect(polar.headers.get('location')).toBe('/pricing?notice=checkout-failed')
  })

  it('a working checkout is left as it is: the redirect to the provider', async () => {
    const user = await createSignedInUser(app)
    const stripe = await postCheckoutSessions({ ...NAVIGATE, cookie: user.cookie })
    expect(stripe.status).toBe(303)
    expect(stripe.headers.get('location')).toMatch(/\/checkout\/cs_test_\w+$/)
    const polar = await getPolarCheckout({ ...NAVIGATE, cookie: user.cookie }, user.id)
    expect(polar.status).toBe(307)
  })

  it('a portal: a browser is sent to it; with nothing to manage, to billing with a message', async () => {
    const user = await createSignedInUser(app)
    const none = await postCustomerPortal({ ...NAVIGATE, cookie: user.cookie })
    expect(none.status).toBe(303)
    expect(none.headers.get('location')).toBe('/dashboard/settings/billing?notice=portal-failed')
    const polarNone = await getPolarPortal({ ...NAVIGATE, cookie: user.cookie })
    expect(polarNone.headers.get('location')).toBe(
      '/dashboard/settings/billing?notice=portal-failed',
    )

    const customer = await emulatorStripe(app).customers.create({ email: user.email })
    await adminClient(app).from('user_subscriptions').insert({
      user_id: user.id,
      provider: 'stripe',
      status: 'active',
      stripe_customer_id: customer.id,
    })
    const portal = await postCustomerPortal({ ...NAVIGATE, cookie: user.cookie })
    expect(portal.status).toBe(303)
    expect(portal.headers.get('location')).toMatch(/\/portal\/bps_\w+/)
    const script = await postCustomerPortal({ cookie: user.cookie })
    expect(script.status).toBe(200)
    expect((await script.json()).url).toMatch(/\/portal\/bps_\w+/)
  })
})
