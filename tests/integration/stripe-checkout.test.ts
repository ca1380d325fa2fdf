import { createServer, type IncomingHttpHeaders, request } from 'node:http'
import type { AddressInfo } from 'node:net'

import Stripe from 'stripe'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { resetEnvForTests } from '../../app/env.server'
import { MemoryRateLimitStore, setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import * as success from '../../app/routes/success'
import {
  adminClient,
  createSignedInUser,
  emulatorStripe,
  rowsWhere,
  successStatus,
  testAppForFile,
  withEnv,
  withStripeWebhooksSwallowed,
} from './harness'

// The app's Stripe client goes through a recording proxy: tests assert on exactly what the
// app asked Stripe for (portal parameters are not retrievable from Stripe).
const app = testAppForFile()
let stripe: Stripe
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>

const PRO = catalogPlan('pro').stripe.priceId
const STARTER = catalogPlan('starter').stripe.priceId

/** Forwards every request to `target` and records its method, path, parameters and headers. */
async function startRecordingProxy(target: string) {
  const calls: {
    method: string
    path: string
    params: URLSearchParams
    headers: IncomingHttpHeaders
  }[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const [body, method, url] = [
      Buffer.concat(chunks),
      req.method ?? 'GET',
      new URL(req.url ?? '/', target),
    ]
    const params = new URLSearchParams(method === 'GET' ? url.search : body.toString())
    calls.push({ method, path: url.pathname, params, headers: req.headers })
    const upstream = request(url, { method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const callsTo = (method: string, path: string) =>
  proxy.calls.filter((call) => call.method === method && call.path === path)

beforeAll(async () => {
  proxy = await startRecordingProxy(app.stack.stripe.url)
  // The app's Stripe client is created on first use, after this: it talks to the proxy.
  process.env.STRIPE_API_URL = proxy.url
  resetEnvForTests()
  stripe = emulatorStripe(app)
})
afterAll(() => proxy?.close())
afterEach(() => app.stack.stripe.clearFaults())
// Each test is another buyer, all from one loopback address: each starts with a fresh budget.
beforeEach(() => setRateLimitStore(new MemoryRateLimitStore()))

type User = Awaited<ReturnType<typeof createSignedInUser>>

function postCheckout(
  user: User | null,
  body: string | null,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${app.url}/api/checkout_sessions`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(user ? { cookie: user.cookie } : {}),
      ...headers,
    },
    body: body ?? undefined,
  })
}

const priceForm = (priceId: string) => new URLSearchParams({ price_id: priceId }).toString()

function postPortal(user: User | null, body?: string): Promise<Response> {
  return fetch(`${app.url}/api/customer_portal`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      ...(user ? { cookie: user.cookie } : {}),
      ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    body,
  })
}

/** The checkout session id in a 303 to the emulator's hosted checkout page. */
function sessionIdFrom(response: Response) {
  const location = response.headers.get('location') ?? ''
  const match = new RegExp(`^${app.stack.stripe.publicUrl}/checkout/(cs_test_\\w+)$`).exec(location)
  if (!match) throw new Error(`not a hosted checkout URL: ${response.status} ${location}`)
  return match[1]
}

async function startCheckout(user: User, priceId = PRO) {
  const response = await postCheckout(user, priceForm(priceId))
  expect(response.status).toBe(303)
  return sessionIdFrom(response)
}

const rowsOf = async (user_id: string) => ({
  subscriptions: await rowsWhere(app, 'user_subscriptions', { user_id }),
  payments: await rowsWhere(app, 'payment_history', { user_id }),
})

async function seedSubscriptionRow(userId: string, fields: Record<string, unknown>) {
  const { error } = await adminClient(app)
    .from('user_subscriptions')
    .upsert({ user_id: userId, ...fields }, { onConflict: 'user_id' })
  if (error) throw new Error(`seed failed: ${error.message}`)
}

describe('POST /api/checkout_sessions', () => {
  it('answers 401 without a session, and with a forged cookie, and calls no provider', async () => {
    const before = proxy.calls.length
    for (const user of [null, { id: 'x', email: 'x', cookie: 'sb-127-auth-token=forged' }]) {
      const response = await postCheckout(user, priceForm(PRO))
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({ error: 'Authentication required' })
      expect(response.headers.get('location')).toBeNull()
    }
    expect(proxy.calls.length).toBe(before)
  })

  it.each([
    ['a missing price_id', ''],
    ['an empty price_id', 'price_id='],
    ['a blank price_id', 'price_id=%20%20'],
    ['the literal text undefined', 'price_id=undefined'],
    ['a price that is not a plan', 'price_id=price_unknown_plan'],
    ['a product id instead of a price id', `price_id=${catalogPlan('pro').stripe.productId}`],
    ['another field only', `priceId=${PRO}`],
  ])('answers 400 for %s and creates no session', async (_label, body) => {
    const user = await createSignedInUser(app)
    const before = callsTo('POST', '/v1/checkout/sessions').length
    const response = await postCheckout(user, body)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'Valid price ID is required' })
    expect(callsTo('POST', '/v1/checkout/sessions').length).toBe(before)
  })

  it('answers 303 to the hosted checkout, with no body, and a session exactly as the spec says', async () => {
    const user = await createSignedInUser(app)
    const response = await postCheckout(user, priceForm(PRO))
    expect(response.status).toBe(303)
    expect(await response.text()).toBe('')
    expect(response.headers.get('content-type')).toBeNull()
    expect(response.headers.get('cache-control')).toBe('no-store')
    const sessionId = sessionIdFrom(response)

    const session = await stripe.checkout.sessions.retrieve(sessionId)
    expect(session).toMatchObject({
      mode: 'subscription',
      status: 'open',
      url: response.headers.get('location'),
      success_url: `${app.url}/success?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${app.url}/pricing?canceled=true`,
      // Off unless STRIPE_AUTOMATIC_TAX=true (Stripe refuses it until Tax is set up).
      automatic_tax: { enabled: false },
      allow_promotion_codes: true,
      // The email is prefilled from the user's customer, made before the session.
      customer: (await stripe.customers.list({ email: user.email })).data[0].id,
      customer_email: null,
      client_reference_id: user.id,
      metadata: { user_id: user.id, user_email: user.email },
      // One Pro price, once: the total is exactly one unit of it.
      amount_total: 2900,
      currency: 'usd',
    })

    const [call] = callsTo('POST', '/v1/checkout/sessions').slice(-1)
    const params = [...call.params].filter(([key]) => /^(line_items|subscription_data)/.test(key))
    expect(Object.fromEntries(params)).toEqual({
      'line_items[0][price]': PRO,
      'line_items[0][quantity]': '1',
      'subscription_data[metadata][user_id]': user.id,
      'subscription_data[metadata][user_email]': user.email,
    })

    // The subscription the session creates carries the metadata and a single item of 1.
    const paid = await withStripeWebhooksSwallowed(app, () =>
      app.stack.stripe.completeCheckout(sessionId),
    )
    expect(paid.ok).toBe(true)
    const completed = await stripe.checkout.sessions.retrieve(sessionId)
    const subscription = await stripe.subscriptions.retrieve(String(completed.subscription))
    expect(subscription.metadata).toEqual({ user_id: user.id, user_email: user.email })
    expect(subscription.items.data).toHaveLength(1)
    expect(subscription.items.data[0]).toMatchObject({ quantity: 1, price: { id: PRO } })
  })

  it('asks for automatic tax only with STRIPE_AUTOMATIC_TAX=true, and Stripe refuses it until Tax is set up', async () => {
    const user = await createSignedInUser(app)
    await withEnv({ STRIPE_AUTOMATIC_TAX: 'true' }, async () => {
      const response = await postCheckout(user, priceForm(PRO))
      // The stand-in's account, like a new one, has no Stripe Tax: a clear error, not a crash.
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({
        error: expect.stringContaining('Stripe Tax has not been activated'),
      })
      const [call] = callsTo('POST', '/v1/checkout/sessions').slice(-1)
      expect(call.params.get('automatic_tax[enabled]')).toBe('true')
    })
    const again = await postCheckout(user, priceForm(PRO))
    expect(again.status).toBe(303)
    const [plain] = callsTo('POST', '/v1/checkout/sessions').slice(-1)
    expect(plain.params.get('automatic_tax[enabled]')).toBe('false')
  })

  it('sells the Starter plan with its own price', async () => {
    const user = await createSignedInUser(app)
    const session = await stripe.checkout.sessions.retrieve(await startCheckout(user, STARTER))
    expect(session.amount_total).toBe(900)
  })

  // A cross-site post: request-policy.test.ts, for every route.
  it("reuses the user's Stripe customer when their row has one", async () => {
    const user = await createSignedInUser(app)
    const customer = await stripe.customers.create({ email: user.email })
    await seedSubscriptionRow(user.id, {
      provider: 'stripe',
      stripe_customer_id: customer.id,
      status: 'canceled',
    })
    const sessionId = await startCheckout(user)
    const session = await stripe.checkout.sessions.retrieve(sessionId)
    expect(session.customer).toBe(customer.id)
    expect(session.customer_email).toBeNull()
    expect(session.metadata).toEqual({ user_id: user.id, user_email: user.email })

    const paid = await withStripeWebhooksSwallowed(app, () =>
      app.stack.stripe.completeCheckout(sessionId),
    )
    expect(paid.ok && paid.session.customer).toBe(customer.id)
    const customers = await stripe.customers.list({ email: user.email })
    expect(customers.data.map((entry) => entry.id)).toEqual([customer.id])
  })

  it.each(['active', 'trialing', 'past_due'])(
    'sends a user whose subscription is %s to billing instead of a second checkout',
    async (status) => {
      const user = await createSignedInUser(app)
      await seedSubscriptionRow(user.id, {
        provider: 'stripe',
        stripe_customer_id: 'cus_existing',
        stripe_subscription_id: 'sub_existing',
        plan_name: 'Starter',
        status,
      })
      const before = callsTo('POST', '/v1/checkout/sessions').length
      const response = await postCheckout(user, priceForm(PRO))
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe(
        '/dashboard/settings/billing?notice=already-subscribed',
      )
      expect(await response.text()).toBe('')
      expect(callsTo('POST', '/v1/checkout/sessions').length).toBe(before)
    },
  )

  it('survives a single transient Stripe 500 (the SDK retries it)', async () => {
    const user = await createSignedInUser(app)
    app.stack.stripe.injectFault({
      method: 'POST',
      path: '/v1/checkout/sessions',
      status: 500,
      count: 1,
    })
    const response = await postCheckout(user, priceForm(PRO))
    expect(response.status).toBe(303)
    sessionIdFrom(response)
  })

  it('answers 500 with the provider message of a 402', async () => {
    const user = await createSignedInUser(app)
    app.stack.stripe.injectFault({
      method: 'POST',
      path: '/v1/checkout/sessions',
      status: 402,
      body: {
        error: { type: 'card_error', code: 'card_declined', message: 'Payment required here.' },
      },
    })
    const response = await postCheckout(user, priceForm(PRO))
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: 'Payment required here.' })
  })

  it('answers 500 with the provider message when a configured plan price does not exist', async () => {
    const user = await createSignedInUser(app)
    await withEnv({ STRIPE_PRICE_PRO: 'price_deleted_in_dashboard' }, async () => {
      const response = await postCheckout(user, priceForm('price_deleted_in_dashboard'))
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({
        error: "No such price: 'price_deleted_in_dashboard'",
      })
    })
  })

  it('answers 405 to GET', async () => {
    const response = await fetch(`${app.url}/api/checkout_sessions`)
    expect(response.status).toBe(405)
  })
})

describe('POST /api/customer_portal', () => {
  async function userWithCustomer() {
    const user = await createSignedInUser(app)
    const customer = await stripe.customers.create({ email: user.email })
    await seedSubscriptionRow(user.id, {
      provider: 'stripe',
      stripe_customer_id: customer.id,
      stripe_subscription_id: 'sub_portal',
      plan_name: 'Pro',
      status: 'active',
    })
    return { user, customerId: customer.id }
  }

  it('answers 401 without a session and calls no provider', async () => {
    const before = proxy.calls.length
    const response = await postPortal(null)
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: 'Unauthorized' })
    expect(proxy.calls.length).toBe(before)
  })

  it.each([
    ['has no row', {}],
    ['has no Stripe customer (a Polar subscription)', { provider: 'polar', status: 'active' }],
  ])('answers 404 when the user %s, and asks Stripe nothing', async (_label, row) => {
    const user = await createSignedInUser(app)
    if ('provider' in row) await seedSubscriptionRow(user.id, row)
    const before = callsTo('POST', '/v1/billing_portal/sessions').length
    const response = await postPortal(user, 'customer=cus_someone_else')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'No subscription found' })
    expect(callsTo('POST', '/v1/billing_portal/sessions').length).toBe(before)
  })

  it("answers 200 with a fresh portal URL for the user's own customer, never cached", async () => {
    const { user, customerId } = await userWithCustomer()
    const other = await userWithCustomer()
    const response = await postPortal(user, `customer=${other.customerId}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = (await response.json()) as { url: string }
    expect(Object.keys(body)).toEqual(['url'])
    expect(body.url).toMatch(new RegExp(`^${app.stack.stripe.publicUrl}/portal/bps_\\w+$`))

    const [call] = callsTo('POST', '/v1/billing_portal/sessions').slice(-1)
    expect(call.params.get('customer')).toBe(customerId)
    expect(call.params.get('return_url')).toBe(`${app.url}/dashboard/settings/billing`)
    expect(call.params.has('configuration')).toBe(false)

    // The page behind the URL is this customer's portal and links back to billing.
    const page = await (await fetch(body.url)).text()
    expect(page).toContain(`<a href="${app.url}/dashboard/settings/billing">Return to site</a>`)

    const second = await postPortal(user)
    expect(second.headers.get('cache-control')).toBe('no-store')
    const { url: secondUrl } = (await second.json()) as { url: string }
    expect(secondUrl).toMatch(/\/portal\/bps_/)
    expect(secondUrl).not.toBe(body.url)
  })

  it('uses the portal configuration id when STRIPE_PORTAL_CONFIGURATION_ID is set', async () => {
    const { user } = await userWithCustomer()
    await withEnv({ STRIPE_PORTAL_CONFIGURATION_ID: 'bpc_test_configuration' }, async () => {
      // A configuration the account does not have is refused by Stripe (the contract's 500).
      const unknown = await postPortal(user)
      expect(unknown.status).toBe(500)
      expect(await unknown.json()).toEqual({ error: 'Internal server error' })
      app.stack.stripe.addPortalConfiguration('bpc_test_configuration')
      const response = await postPortal(user)
      expect(response.status).toBe(200)
      const [call] = callsTo('POST', '/v1/billing_portal/sessions').slice(-1)
      expect(call.params.get('configuration')).toBe('bpc_test_configuration')
    })
  })

  it('answers 500 Internal server error when Stripe refuses (unknown customer), without its message', async () => {
    const user = await createSignedInUser(app)
    await seedSubscriptionRow(user.id, { provider: 'stripe', stripe_customer_id: 'cus_gone' })
    const response = await postPortal(user)
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: 'Internal server error' })
  })
})

describe('/success', () => {
  async function tableCounts() {
    const admin = adminClient(app)
    const count = async (table: string) =>
      (await admin.from(table).select('*', { count: 'exact', head: true })).count
    return {
      subscriptions: await count('user_subscriptions'),
      payments: await count('payment_history'),
      events: await count('webhook_events'),
    }
  }

  it('shows a paid session as complete, activates nothing itself, and names the plan, amount and receipt address to the signed-in buyer only', async () => {
    const user = await createSignedInUser(app)
    const sessionId = await startCheckout(user)
    await withStripeWebhooksSwallowed(app, () => app.stack.stripe.completeCheckout(sessionId))
    const before = await tableCounts()
    expect(await successStatus(app, `?session_id=${sessionId}`)).toBe('complete')
    expect(await tableCounts()).toEqual(before)
    expect(await rowsOf(user.id)).toEqual({ subscriptions: [], payments: [] })
    const summaryFor = async (cookie: string) => {
      const result = (await success.loader({
        request: new Request(`${app.url}/success?session_id=${sessionId}`, {
          headers: cookie ? { Cookie: cookie } : {},
        }),
        params: {},
        context: {},
      })) as unknown as { data: { summary: unknown } }
      return result.data.summary
    }
    expect(await summaryFor(user.cookie)).toEqual({
      plan: 'Pro',
      amount: '$29.00 per month',
      receiptTo: user.email,
    })
    // Anyone else with the link, signed out or signed in as someone else: a neutral page.
    expect(await summaryFor('')).toBeNull()
    expect(await summaryFor((await createSignedInUser(app)).cookie)).toBeNull()
  })

  it('shows an unpaid session and a declined payment as open, an expired session as failed', async () => {
    const user = await createSignedInUser(app)
    const sessionId = await startCheckout(user)
    const before = await tableCounts()
    expect(await successStatus(app, `?session_id=${sessionId}`)).toBe('open')
    expect(await tableCounts()).toEqual(before)
    const declined = await app.stack.stripe.completeCheckout(sessionId, {
      number: '4000000000000002',
    })
    expect(declined).toMatchObject({ ok: false, message: 'Your card was declined.' })
    expect(await successStatus(app, `?session_id=${sessionId}`)).toBe('open')
    await stripe.checkout.sessions.expire(sessionId)
    expect(await successStatus(app, `?session_id=${sessionId}`)).toBe('failed')
  })

  it.each([
    ['a session Stripe does not know (not as unpaid)', '?session_id=cs_test_doesnotexist', 1],
    ['a garbage session id', '?session_id=..%2F..%2Fv1%2Fcustomers', 0],
    ['no session id', '', 0],
    ['an empty session id', '?session_id=', 0],
  ])('shows %s as not found, claims nothing, asks Stripe %i times', async (_l, query, asked) => {
    const [before, calls] = [await tableCounts(), proxy.calls.length]
    expect(await successStatus(app, query)).toBe('missing')
    expect(await tableCounts()).toEqual(before)
    expect(proxy.calls.length).toBe(calls + asked)
  })

  it('never says "not charged" when Stripe cannot be asked: confirming, then the answer', async () => {
    const user = await createSignedInUser(app)
    const sessionId = await startCheckout(user)
    await withStripeWebhooksSwallowed(app, () => app.stack.stripe.completeCheckout(sessionId))
    app.stack.stripe.injectFault({ path: '/v1/checkout/sessions/', status: 500, count: 3 })
    expect(await successStatus(app, `?session_id=${sessionId}`)).toBe('confirming')
    expect(await successStatus(app, `?session_id=${sessionId}`)).toBe('complete')
  })
})

it('the whole purchase: checkout, payment and webhooks leave exactly the expected rows', async () => {
  const user = await createSignedInUser(app)
  const sessionId = await startCheckout(user)
  expect(await rowsOf(user.id)).toEqual({ subscriptions: [], payments: [] })

  const paid = await app.stack.stripe.completeCheckout(sessionId)
  if (!paid.ok) throw new Error(paid.message)
  expect(paid.redirectTo).toBe(`${app.url}/success?session_id=${sessionId}`)
  await app.stack.stripe.idle()

  const session = await stripe.checkout.sessions.retrieve(sessionId)
  const subscription = await stripe.subscriptions.retrieve(String(session.subscription))
  const invoice = await stripe.invoices.retrieve(String(subscription.latest_invoice))
  // Since API version basil the payment intent is on the invoice's payments, not the invoice.
  const [invoicePayment] = (await stripe.invoicePayments.list({ invoice: invoice.id })).data
  const paymentIntentId = invoicePayment.payment.payment_intent
  expect(paymentIntentId).toMatch(/^pi_/)
  const item = subscription.items.data[0]

  const rows = await rowsOf(user.id)
  const row = rows.subscriptions[0]
  expect(rows).toMatchObject({
    subscriptions: [
      {
        provider: 'stripe',
        stripe_customer_id: session.customer,
        stripe_subscription_id: subscription.id,
        plan_name: 'Pro',
        status: 'active',
        billing_cycle: 'month',
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        trial_start: null,
        trial_end: null,
        metadata: { user_id: user.id, user_email: user.email },
        // The card that paid the first invoice (4242), from its invoice payment's PaymentIntent.
        card_brand: 'visa',
        card_last4: '4242',
      },
    ],
    payments: [
      {
        provider: 'stripe',
        provider_payment_id: invoice.id,
        provider_charge_id: paymentIntentId,
        amount: 2900,
        currency: 'usd',
        status: 'paid',
        description: 'Pro payment',
        invoice_url: invoice.hosted_invoice_url,
      },
    ],
  })
  expect(invoice.hosted_invoice_url).toMatch(/^http/)
  const time = (value: unknown) => new Date(String(value)).getTime()
  expect([time(row.current_period_start), time(row.current_period_end)]).toEqual([
    item.current_period_start * 1000,
    item.current_period_end * 1000,
  ])

  // Every delivery for this purchase was accepted on the first attempt.
  const ids = new Set(paid.events.map((event) => event.id))
  const deliveries = app.stack.stripe.deliveries().filter((entry) => ids.has(entry.eventId))
  expect(deliveries.length).toBe(ids.size)
  expect(deliveries.every((entry) => entry.status === 200)).toBe(true)

  expect(await successStatus(app, `?session_id=${sessionId}`)).toBe('complete')

  // Canceled now, they may buy again: same customer, a new subscription, a second payment.
  await stripe.subscriptions.cancel(subscription.id)
  await app.stack.stripe.idle()
  expect((await rowsOf(user.id)).subscriptions[0]).toMatchObject({
    status: 'canceled',
    stripe_subscription_id: subscription.id,
  })
  // A person takes more than a second to buy again. (Events of two subscriptions in the
  // same second are ordered by status rank, so a new `active` would lose to `canceled`.)
  app.stack.stripe.advanceClock(60)
  const secondId = await startCheckout(user, STARTER)
  expect((await stripe.checkout.sessions.retrieve(secondId)).customer).toBe(session.customer)
  const repaid = await app.stack.stripe.completeCheckout(secondId)
  if (!repaid.ok) throw new Error(repaid.message)
  await app.stack.stripe.idle()
  const after = await rowsOf(user.id)
  expect(after.subscriptions).toHaveLength(1)
  expect(after.subscriptions[0]).toMatchObject({
    stripe_customer_id: session.customer,
    stripe_subscription_id: repaid.session.subscription,
    plan_name: 'Starter',
    status: 'active',
    canceled_at: null,
  })
  expect(after.payments.map((payment) => [payment.amount, payment.description]).sort()).toEqual([
    [2900, 'Pro payment'],
    [900, 'Starter payment'],
  ])
})

it("a request's own id travels with the calls made for it: Stripe's and the database's", async () => {
  const user = await createSignedInUser(app)
  const before = proxy.calls.length
  const database = vi.spyOn(globalThis, 'fetch')
  let restCalls: (string | null)[]
  try {
    // A client's X-Request-Id is only recorded beside ours (the access line): ours travels.
    const response = await postCheckout(user, priceForm(PRO), { 'x-request-id': 'lb-req-4f1c' })
    expect(response.status).toBe(303)
    restCalls = database.mock.calls
      .filter(([input]) =>
        String(input instanceof Request ? input.url : input).includes('/rest/v1/'),
      )
      .map(([, init]) => new Headers(init?.headers).get('x-request-id'))
    expect(restCalls.length).toBeGreaterThan(0)
  } finally {
    database.mockRestore()
  }
  const calls = proxy.calls.slice(before)
  expect(calls.map((call) => call.path)).toContain('/v1/checkout/sessions')
  const ids = new Set([...restCalls, ...calls.map((call) => call.headers['x-request-id'])])
  expect(ids.size).toBe(1)
  const [id] = ids
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/)
  // The SDK's own idempotency keys carry it (the customer's key is the app's: kept).
  const session = calls.find(
    (call) => call.path === '/v1/checkout/sessions' && call.method === 'POST',
  )
  expect(session?.headers['idempotency-key']).toMatch(new RegExp(`^${id}-`))
})
