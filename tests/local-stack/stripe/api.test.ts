import type Stripe from 'stripe'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { sdkFor, setupStack, verifiedEvents } from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>

beforeEach(async () => {
  stack = await setupStack()
})
afterEach(async () => {
  await stack.teardown()
})

describe('errors in Stripe shape', () => {
  it('rejects an unknown price on checkout with resource_missing', async () => {
    await expect(
      stack.stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: 'price_nope', quantity: 1 }],
        success_url: 'http://localhost:5173/success',
      }),
    ).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'resource_missing',
      param: 'line_items[0][price]',
      message: "No such price: 'price_nope'",
      requestId: expect.stringMatching(/^req_/),
    })
  })

  it('answers a wrong key with 401 and a missing key with 401', async () => {
    await expect(
      sdkFor(stack.emulator, 'sk_test_wrong_key_1234').customers.list(),
    ).rejects.toMatchObject({
      type: 'StripeAuthenticationError',
      statusCode: 401,
      message: expect.stringMatching(/^Invalid API Key provided: sk_test_\*+1234$/),
    })
    const response = await fetch(`${stack.emulator.url}/v1/customers`)
    expect(response.status).toBe(401)
    const body = (await response.json()) as { error: { type: string; message: string } }
    expect(body.error.type).toBe('invalid_request_error')
    expect(body.error.message).toMatch(/^You did not provide an API key/)
  })

  it('answers a missing subscription with 404 resource_missing', async () => {
    await expect(stack.stripe.subscriptions.retrieve('sub_missing')).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 404,
      code: 'resource_missing',
      param: 'id',
      message: "No such subscription: 'sub_missing'",
    })
  })

  it('answers an unknown URL with 404', async () => {
    const response = await fetch(`${stack.emulator.url}/v1/nothing_here`, {
      headers: { authorization: 'Bearer sk_test_local_emulator' },
    })
    expect(response.status).toBe(404)
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'Unrecognized request URL (GET: /v1/nothing_here)',
    )
  })
})

describe('idempotency', () => {
  it('replays the first response for the same key', async () => {
    const first = await stack.stripe.customers.create(
      { email: 'a@example.com' },
      { idempotencyKey: 'key-1' },
    )
    const second = await stack.stripe.customers.create(
      { email: 'a@example.com' },
      { idempotencyKey: 'key-1' },
    )
    expect(second.id).toBe(first.id)
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true')
    expect((await stack.stripe.customers.list()).data).toHaveLength(1)
    await expect(
      stack.stripe.customers.create({ email: 'b@example.com' }, { idempotencyKey: 'key-1' }),
    ).rejects.toMatchObject({ type: 'StripeIdempotencyError', statusCode: 400 })
  })
})

describe('customers', () => {
  it('creates, updates, retrieves and lists by email', async () => {
    const ada = await stack.stripe.customers.create({
      email: 'ada@example.com',
      metadata: { user_id: 'u1' },
    })
    await stack.stripe.customers.create({ email: 'bob@example.com' })
    expect(ada).toMatchObject({
      object: 'customer',
      email: 'ada@example.com',
      metadata: { user_id: 'u1' },
    })
    const updated = await stack.stripe.customers.update(ada.id, {
      name: 'Ada',
      metadata: { plan: 'pro' },
    })
    expect(updated).toMatchObject({ name: 'Ada', metadata: { user_id: 'u1', plan: 'pro' } })
    expect((await stack.stripe.customers.retrieve(ada.id)).id).toBe(ada.id)
    const found = await stack.stripe.customers.list({ email: 'ada@example.com' })
    expect(found.data.map((customer) => customer.id)).toEqual([ada.id])
    await stack.emulator.idle()
    const events = verifiedEvents(stack.stripe, stack.receiver)
    expect(events.map((event) => event.type)).toEqual([
      'customer.created',
      'customer.created',
      'customer.updated',
    ])
    expect(events[2].data.previous_attributes).toEqual({ name: null, metadata: { plan: null } })
    expect(events[0].request).toEqual({
      id: expect.stringMatching(/^req_/),
      idempotency_key: expect.stringMatching(/^stripe-node-retry-/),
    })
  })
})

describe('subscriptions through the API', () => {
  it('creates, updates (cancel flag, price, metadata) and cancels with events', async () => {
    const { stripe, emulator, receiver } = stack
    const customer = await stripe.customers.create({ email: 'api@example.com' })
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: 'price_starter_monthly' }],
      metadata: { user_id: 'u2' },
    })
    expect(sub).toMatchObject({ status: 'active', metadata: { user_id: 'u2' } })
    const itemId = sub.items.data[0].id
    const switched = await stripe.subscriptions.update(sub.id, {
      items: [{ id: itemId, price: 'price_pro_monthly' }],
      cancel_at_period_end: true,
      metadata: { plan: 'pro' },
    })
    expect(switched.items.data).toHaveLength(1)
    expect(switched.items.data[0]).toMatchObject({ id: itemId, price: { id: 'price_pro_monthly' } })
    expect(switched).toMatchObject({
      cancel_at_period_end: true,
      metadata: { user_id: 'u2', plan: 'pro' },
    })
    const canceled = await stripe.subscriptions.cancel(sub.id)
    expect(canceled.status).toBe('canceled')
    await expect(
      stripe.subscriptions.update(sub.id, { cancel_at_period_end: false }),
    ).rejects.toMatchObject({
      statusCode: 400,
    })
    const active = await stripe.subscriptions.list({ customer: customer.id })
    expect(active.data).toHaveLength(0)
    await emulator.idle()
    const events = verifiedEvents(stripe, receiver)
    expect(events.map((event) => event.type)).toEqual([
      'customer.created',
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
      'customer.subscription.deleted',
    ])
    expect(Object.keys(events[6].data.previous_attributes ?? {}).sort()).toEqual([
      'cancel_at',
      'cancel_at_period_end',
      'canceled_at',
      'cancellation_details',
      'items',
      'metadata',
    ])
  })
})

describe('catalog, invoices and events', () => {
  it('serves the seeded plans', async () => {
    const prices = await stack.stripe.prices.list({ expand: ['data.product'] })
    const byId = Object.fromEntries(prices.data.map((price) => [price.id, price]))
    expect(byId.price_pro_monthly).toMatchObject({
      unit_amount: 2900,
      currency: 'usd',
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
      product: { id: 'prod_pro', name: 'Pro' },
    })
    expect(byId.price_starter_monthly).toMatchObject({
      unit_amount: 900,
      product: { id: 'prod_starter' },
    })
    const product = await stack.stripe.products.retrieve('prod_starter')
    expect(product).toMatchObject({ name: 'Starter', default_price: 'price_starter_monthly' })
    expect((await stack.stripe.products.list()).data).toHaveLength(2)
  })

  it('lists invoices and events with filters', async () => {
    const event = await stack.emulator.trigger('invoice.payment_succeeded')
    const invoiceId = (event.data.object as { id: string }).id
    const invoice = await stack.stripe.invoices.retrieve(invoiceId)
    expect(invoice.parent?.subscription_details?.subscription).toEqual(
      expect.stringMatching(/^sub_/),
    )
    const listed = await stack.stripe.invoices.list({ customer: invoice.customer as string })
    expect(listed.data.map((item) => item.id)).toEqual([invoiceId])
    await stack.emulator.idle()
    const fetched = await stack.stripe.events.retrieve(event.id)
    expect(fetched).toMatchObject({
      id: event.id,
      type: 'invoice.payment_succeeded',
      pending_webhooks: 0,
    })
    const invoiceEvents = await stack.stripe.events.list({ type: 'invoice.*', limit: 2 })
    expect(invoiceEvents.data.map((item) => item.type)).toEqual([
      'invoice.payment_succeeded',
      'invoice.paid',
    ])
    expect(invoiceEvents.has_more).toBe(true)
    const next = await stack.stripe.events.list({
      type: 'invoice.*',
      starting_after: invoiceEvents.data[1].id,
    })
    expect(next.data.map((item) => item.type)).toEqual(['invoice.finalized', 'invoice.created'])
  })
})

describe('the created filter of list endpoints', () => {
  it('takes a Unix time or a gt/gte/lt/lte range, and refuses anything else as Stripe does', async () => {
    const customer = await stack.stripe.customers.create({ email: 'created@example.com' })
    const event = (await stack.stripe.events.list({ type: 'customer.created' })).data[0]
    expect(event.data.object).toMatchObject({ id: customer.id })
    const at = event.created
    const ids = async (created: Stripe.RangeQueryParam | number) =>
      (await stack.stripe.events.list({ type: 'customer.created', created })).data.map((e) => e.id)
    expect(await ids({ gte: at })).toEqual([event.id])
    expect(await ids(at)).toEqual([event.id])
    expect(await ids({ gt: at })).toEqual([])
    expect(await ids({ lt: at })).toEqual([])
    expect(await ids({ gte: at - 60, lte: at })).toEqual([event.id])
    expect((await stack.stripe.invoices.list({ created: { gt: at + 60 } })).data).toEqual([])
    const query = (q: string) =>
      fetch(`${stack.emulator.url}/v1/subscriptions?${q}`, {
        headers: { Authorization: 'Bearer sk_test_local_emulator' },
      }).then(async (response) => ({ status: response.status, body: await response.json() }))
    expect(await query('created[after]=1')).toMatchObject({
      status: 400,
      body: { error: { code: 'parameter_unknown', param: 'created[after]' } },
    })
    expect(await query('created[gte]=yesterday')).toMatchObject({
      status: 400,
      body: { error: { param: 'created[gte]', message: 'Invalid integer: yesterday' } },
    })
  })
})
