import { randomUUID } from 'node:crypto'

import { beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_DEFAULTS } from '~/env.server'

import { signWebhook } from '../local-stack/polar'
import {
  createSignedInUser,
  ledgerCount,
  polarSubscriber,
  rowsWhere,
  subscriptionRowOf,
  testAppForFile,
  withEnv,
} from './harness'
import {
  orderObject,
  paidEmulatorCheckout,
  polarEvent,
  postPolarEvent,
  subscriptionObject,
  type SubscriptionOptions,
} from './polar-fixtures'

/** Standard Webhooks-signed Polar events through the real HTTP route into the real database. */
// Invoices are generated at once; "not ready" is injected with a fault where needed.
const app = testAppForFile({ polarInvoiceDelayMs: 0 })

const OK = { status: 200, body: { received: true } }
const BAD_SIGNATURE = { status: 400, body: { error: 'Webhook signature verification failed' } }
const TOO_LARGE = { status: 413, body: { error: 'Payload too large' } }
const SECRET = LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET

const paymentRows = (provider_payment_id: string) =>
  rowsWhere(app, 'payment_history', { provider_payment_id }, { order: 'status' })
const newUser = async () => (await createSignedInUser(app)).id
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 10) + seconds * 1000).toISOString()
const ms = (value: unknown) => new Date(String(value)).getTime()

beforeAll(() => {
  // Only the hand-signed events of these tests reach the app; the emulator's own wait.
  app.stack.polar.setWebhookUrl(undefined)
})

describe('verification', () => {
  const created = (userId: string) =>
    polarEvent('subscription.created', subscriptionObject({ userId }))

  // A future stamp comes nearer while the request travels: 5 s of margin for a loaded machine.
  it.each<[string, () => Parameters<typeof postPolarEvent>[2]]>([
    ['a signature made with another secret', () => ({ secret: 'polar_whs_wrong_one' })],
    ['a request without webhook-id', () => ({ omit: ['webhook-id'] })],
    ['a request without webhook-timestamp', () => ({ omit: ['webhook-timestamp'] })],
    ['a request without webhook-signature', () => ({ omit: ['webhook-signature'] })],
    [
      'a timestamp older than 300 seconds',
      () => ({ timestamp: Math.floor(Date.now() / 1000) - 301 }),
    ],
    [
      'a timestamp newer than 300 seconds',
      () => ({ timestamp: Math.floor(Date.now() / 1000) + 305 }),
    ],
    [
      'a body changed after signing',
      () => {
        const [id, timestamp] = [`msg_${randomUUID()}`, Math.floor(Date.now() / 1000)]
        return { id, timestamp, signature: signWebhook(SECRET, id, timestamp, '{"other":1}') }
      },
    ],
  ])('rejects %s and writes nothing', async (_label, options) => {
    const userId = await newUser()
    const result = await postPolarEvent(app.url, created(userId), options())
    expect(result).toMatchObject(BAD_SIGNATURE)
    expect(await ledgerCount(app, result.id)).toBe(0)
    expect(await subscriptionRowOf(app, userId)).toBeNull()
  })

  it('accepts the previous secret while POLAR_WEBHOOK_SECRET_PREVIOUS is set, alone or in a list; neither is refused', async () => {
    const previous = 'polar_whs_before_regeneration'
    const before = await postPolarEvent(app.url, created(await newUser()), { secret: previous })
    expect(before).toMatchObject(BAD_SIGNATURE)
    await withEnv({ POLAR_WEBHOOK_SECRET_PREVIOUS: previous }, async () => {
      const userId = await newUser()
      const result = await postPolarEvent(app.url, created(userId), { secret: previous })
      expect(result).toMatchObject({ status: 200, body: { received: true } })
      expect(await ledgerCount(app, result.id)).toBe(1)
      expect(await subscriptionRowOf(app, userId)).toMatchObject({ status: 'active' })
      // Standard Webhooks: a space-separated list, one signature per secret.
      const body = JSON.stringify(created(await newUser()))
      const id = `msg_${randomUUID()}`
      const timestamp = Math.floor(Date.now() / 1000)
      const signature = [
        signWebhook('polar_whs_some_other_one', id, timestamp, body),
        signWebhook(previous, id, timestamp, body),
      ].join(' ')
      expect((await postPolarEvent(app.url, body, { id, timestamp, signature })).status).toBe(200)
      expect((await postPolarEvent(app.url, created(await newUser()))).status).toBe(200)
      const neither = await postPolarEvent(app.url, created(await newUser()), {
        secret: 'polar_whs_neither_one',
      })
      expect(neither).toMatchObject(BAD_SIGNATURE)
      expect(await ledgerCount(app, neither.id)).toBe(0)
    })
  })

  it('accepts a timestamp within the tolerance, on the spec path too', async () => {
    const userId = await newUser()
    const result = await postPolarEvent(app.url, created(userId), {
      timestamp: Math.floor(Date.now() / 1000) - 290,
      path: '/api/webhooks/providerb',
    })
    expect(result).toMatchObject(OK)
    expect((await subscriptionRowOf(app, userId))?.status).toBe('active')
  })

  const INVALID = { status: 400, body: { error: 'Invalid webhook payload' } }
  it.each([
    ['a signed body that is not JSON', '{"type": "subscription.created", ', INVALID],
    [
      'a handled type with a malformed object',
      JSON.stringify(polarEvent('subscription.created', { id: 42, status: 'active' })),
      INVALID,
    ],
    ['an oversized body', 'x'.repeat(1024 * 1024 + 10), TOO_LARGE],
  ])('answers %s in kind and writes nothing', async (_label, body, answer) => {
    const result = await postPolarEvent(app.url, body)
    expect(result).toMatchObject(answer)
    expect(await ledgerCount(app, result.id)).toBe(0)
  })

  // As the SDK's validateEvent answers them: signed JSON that names no type is an unknown type,
  // acknowledged without a record; a known type the app does not handle is recorded.
  it.each([
    [JSON.stringify(polarEvent('widget.exploded', { id: 'w_1' })), 0],
    ['null', 0],
    ['[]', 0],
    ['"subscription.created"', 0],
    ['{"data":{}}', 0],
    ['{"type":7}', 0],
    ['{"type":"toString"}', 0],
    [JSON.stringify(polarEvent('checkout.created', { id: 'c_1' })), 1],
  ])(
    'acknowledges signed JSON the app does not apply (%s), ledger rows: %i',
    async (body, rows) => {
      const result = await postPolarEvent(app.url, body)
      expect(result).toMatchObject(OK)
      expect(await ledgerCount(app, result.id)).toBe(rows)
    },
  )

  it('answers other methods with 405', async () => {
    const response = await fetch(`${app.url}/api/webhooks/polar`)
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
  })
})

describe('subscription events', () => {
  let userId: string
  const subscriptionId = randomUUID()
  const customerId = randomUUID()
  const sub = (options: Parameters<typeof subscriptionObject>[0] = {}) =>
    subscriptionObject({ id: subscriptionId, customerId, userId, ...options })

  beforeAll(async () => {
    userId = await newUser()
  })

  it('subscription.created upserts every field of the spec', async () => {
    const before = Date.now()
    const result = await postPolarEvent(
      app.url,
      polarEvent(
        'subscription.created',
        sub({ interval: 'year', periodStart: at(0), periodEnd: at(86_400) }),
        { timestamp: at(0) },
      ),
    )
    expect(result).toMatchObject(OK)
    const row = await subscriptionRowOf(app, userId)
    expect(row).toMatchObject({
      provider: 'polar',
      polar_customer_id: customerId,
      polar_subscription_id: subscriptionId,
      polar_product_id: subscriptionObject().product_id,
      plan_name: 'Pro',
      status: 'active',
      billing_cycle: 'year',
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
    })
    expect(ms(row?.current_period_start)).toBe(ms(at(0)))
    expect(ms(row?.current_period_end)).toBe(ms(at(86_400)))
    // created_at and updated_at are the time of writing (now), not the event's.
    expect(ms(row?.created_at)).toBeGreaterThanOrEqual(before - 2000)
    expect(ms(row?.updated_at)).toBeGreaterThanOrEqual(before - 2000)
    expect(await ledgerCount(app, result.id)).toBe(1)
  })

  it('a repeated delivery (same webhook-id, other content) changes nothing', async () => {
    const first = await postPolarEvent(
      app.url,
      polarEvent('subscription.updated', sub({ status: 'past_due' }), { timestamp: at(10) }),
    )
    expect(first).toMatchObject(OK)
    const replay = await postPolarEvent(
      app.url,
      polarEvent('subscription.updated', sub({ status: 'unpaid' }), { timestamp: at(11) }),
      { id: first.id },
    )
    expect(replay).toMatchObject(OK)
    expect((await subscriptionRowOf(app, userId))?.status).toBe('past_due')
    expect(await ledgerCount(app, first.id)).toBe(1)
  })

  /** The row with its times as ISO strings, to compare with at(...). */
  const rowWithIsoTimes = async () =>
    Object.fromEntries(
      Object.entries((await subscriptionRowOf(app, userId)) ?? {}).map(([key, value]) => [
        key,
        key.endsWith('_at') && value ? new Date(String(value)).toISOString() : value,
      ]),
    )

  // In order: each event is newer than the one before it, but for the late one.
  it.each<[string, string, SubscriptionOptions, number, Record<string, unknown>]>([
    [
      'subscription.updated syncs status, plan name and cancellation dates',
      'subscription.updated',
      {
        productName: 'Pro Plus',
        cancelAtPeriodEnd: true,
        canceledAt: at(30),
        endsAt: at(86_400),
        periodEnd: at(86_400),
      },
      30,
      {
        status: 'active',
        plan_name: 'Pro Plus',
        cancel_at_period_end: true,
        cancel_at: at(86_400),
        canceled_at: at(30),
      },
    ],
    [
      // Every subscription event carries the whole, current subscription (its product too).
      'subscription.uncanceled clears the scheduled cancellation',
      'subscription.uncanceled',
      { productName: 'Pro Plus' },
      40,
      {
        status: 'active',
        plan_name: 'Pro Plus',
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
      },
    ],
    [
      'subscription.canceled records cancel_at, cancel_at_period_end and canceled_at',
      'subscription.canceled',
      { cancelAtPeriodEnd: true, canceledAt: at(50), endsAt: at(90_000) },
      50,
      { status: 'active', cancel_at_period_end: true, cancel_at: at(90_000), canceled_at: at(50) },
    ],
    [
      'an older event arriving late does not overwrite newer state',
      'subscription.updated',
      { status: 'past_due' },
      45,
      { status: 'active', cancel_at_period_end: true },
    ],
    [
      'subscription.revoked cancels at once',
      'subscription.revoked',
      { status: 'canceled', canceledAt: at(60), endedAt: at(60) },
      60,
      { status: 'canceled', cancel_at_period_end: false, canceled_at: at(60) },
    ],
  ])('%s', async (_label, type, options, seconds, expected) => {
    const result = await postPolarEvent(
      app.url,
      polarEvent(type, sub(options), { timestamp: at(seconds) }),
    )
    expect(result).toMatchObject(OK)
    expect(await ledgerCount(app, result.id)).toBe(1)
    expect(await rowWithIsoTimes()).toMatchObject(expected)
  })

  it("never takes the user from the customer's metadata (anyone's checkout can merge it); a product without a name is Unknown Plan", async () => {
    const [mine, theirs] = [await newUser(), await newUser()]
    for (const subscription of [
      subscriptionObject({ userId: mine, customerUserId: theirs, productName: null }),
      // Never from the customer's metadata: anyone's checkout can merge it.
      subscriptionObject({ userId: null, customerUserId: theirs }),
    ])
      expect(
        await postPolarEvent(app.url, polarEvent('subscription.created', subscription)),
      ).toMatchObject(OK)
    expect(await subscriptionRowOf(app, mine)).toMatchObject({ plan_name: 'Unknown Plan' })
    expect(await subscriptionRowOf(app, theirs)).toBeNull()
  })

  it.each([
    ['an unknown user id', () => randomUUID()],
    ['a user id that is not a UUID', () => 'not-a-uuid'],
    ['no user id at all', () => null],
  ])('acknowledges %s and writes nothing', async (_label, makeId) => {
    const stranger = makeId()
    const subscription = subscriptionObject({ userId: stranger })
    const result = await postPolarEvent(app.url, polarEvent('subscription.created', subscription))
    expect(result).toMatchObject(OK)
    const rows = rowsWhere(app, 'user_subscriptions', { polar_subscription_id: subscription.id })
    expect(await rows).toEqual([])
  })
})

describe('order events', () => {
  it("order.created of a paid order is logged only; a renewal's reads pending, failed once past due, then paid with its receipt", async () => {
    const { user, order, subscription } = await polarSubscriber(app)
    const result = await postPolarEvent(app.url, polarEvent('order.created', order))
    expect(result).toMatchObject(OK)
    expect(await ledgerCount(app, result.id)).toBe(1)
    expect(await paymentRows(order.id)).toEqual([])

    // A declined renewal, as Polar sends it: the order created pending, then past due.
    const declined = await app.stack.polar.trigger('renewal', {
      subscription_id: subscription.id,
      paid: false,
    })
    const renewal = declined.order!
    expect(await postPolarEvent(app.url, polarEvent('order.created', renewal))).toMatchObject(OK)
    expect(await paymentRows(renewal.id)).toMatchObject([{ status: 'pending', amount: 2900 }])
    const pastDue = polarEvent('subscription.updated', declined.subscription)
    expect(await postPolarEvent(app.url, pastDue)).toMatchObject(OK)
    expect(await paymentRows(renewal.id)).toMatchObject([{ status: 'failed', amount: 2900 }])

    // Paid on a retry: the same row, now the payment, with its receipt.
    const paid = { ...renewal, status: 'paid', paid: true }
    expect(await postPolarEvent(app.url, polarEvent('order.paid', paid))).toMatchObject(OK)
    expect(await paymentRows(renewal.id)).toMatchObject([{ status: 'succeeded', amount: 2900 }])
    const receipts = rowsWhere(app, 'notification_outbox', {
      user_id: user.id,
      kind: 'payment_receipt',
    })
    expect(await receipts).toHaveLength(1)
  })

  it('order.paid records the payment with the invoice fetched via POST then GET', async () => {
    const { user, order } = await polarSubscriber(app)
    expect(app.stack.polar.state.orders.get(order.id)?.is_invoice_generated).toBe(false)
    const restBefore = app.stack.supabase.restCountsByPath()
    const result = await postPolarEvent(app.url, polarEvent('order.paid', order))
    expect(result).toMatchObject(OK)
    // The ledger finds the subscription's user itself, no lookup first; the invoice URL is
    // asked for and written only once the payment is recorded.
    const restAfter = app.stack.supabase.restCountsByPath()
    const calls = Object.keys(restAfter)
      .map((path) => [path, restAfter[path] - (restBefore[path] ?? 0)] as const)
      .filter(([, count]) => count > 0)
    expect(calls.sort()).toEqual([
      ['/rpc/fill_payment_details', 1],
      ['/rpc/record_payment_event', 1],
    ])
    // The POST generated it (the emulator marks the order), the GET returned its URL.
    expect(app.stack.polar.state.orders.get(order.id)?.is_invoice_generated).toBe(true)
    const rows = await paymentRows(order.id)
    expect(rows).toMatchObject([
      {
        user_id: user.id,
        provider: 'polar',
        provider_payment_id: order.id,
        status: 'succeeded',
        amount: order.total_amount,
        currency: 'usd',
        description: 'Pro payment',
        invoice_url: `${app.stack.polar.url}/invoices/${order.id}`,
      },
    ])
    expect(ms(rows[0].created_at)).toBe(ms(order.created_at))
  })

  // Duplicate deliveries of a payment, and another event about it: tests/db/webhook-apply.test.ts.
  it.each([
    // A real order whose subscription.created never matched a user (metadata: a stranger).
    [
      'for a subscription nobody has',
      async () => (await paidEmulatorCheckout(app, randomUUID())).order,
    ],
    ['without any user reference', async () => orderObject({ subscriptionId: null, userId: null })],
  ])(
    'order.paid %s is acknowledged, writes nothing and asks Polar nothing',
    async (_label, make) => {
      const order = await make()
      const calls = () => JSON.stringify(app.stack.polar.apiCalls())
      const before = calls()
      const result = await postPolarEvent(app.url, polarEvent('order.paid', order))
      expect(result).toMatchObject(OK)
      expect(await ledgerCount(app, result.id)).toBe(1)
      expect(await paymentRows(order.id)).toEqual([])
      expect(calls()).toBe(before)
    },
  )

  it('order.paid uses "Subscription payment" when the product has no name', async () => {
    const { order } = await polarSubscriber(app)
    const unnamed = { ...order, total_amount: 2500, product: { ...order.product, name: null } }
    expect(await postPolarEvent(app.url, polarEvent('order.paid', unnamed))).toMatchObject(OK)
    expect(await paymentRows(order.id)).toMatchObject([
      { description: 'Subscription payment', amount: 2500 },
    ])
  })

  it('records what the card was charged, tax included, and as much back on a full refund', async () => {
    app.stack.polar.setTaxRate('US', 10)
    const { order } = await polarSubscriber(app).finally(() => app.stack.polar.setTaxRate('US', 0))
    expect(order).toMatchObject({ net_amount: 2900, tax_amount: 290, total_amount: 3190 })
    expect(await postPolarEvent(app.url, polarEvent('order.paid', order))).toMatchObject(OK)
    const refund = await app.stack.polar.trigger('refund', { order_id: order.id })
    expect(refund.order).toMatchObject({ refunded_amount: 2900, refunded_tax_amount: 290 })
    const refunded = polarEvent('order.refunded', refund.order)
    expect(await postPolarEvent(app.url, refunded)).toMatchObject(OK)
    expect((await paymentRows(order.id)).map((row) => [row.status, row.amount])).toEqual([
      ['refunded', -3190],
      ['succeeded', 3190],
    ])
  })

  it('order.refunded records one negative refunded row, a later refund raises it; its payment and mails carry each refund', async () => {
    const { user, order } = await polarSubscriber(app)
    expect(await postPolarEvent(app.url, polarEvent('order.paid', order))).toMatchObject(OK)
    const partial = { ...order, status: 'partially_refunded', refunded_amount: 1000 }
    expect(
      await postPolarEvent(app.url, polarEvent('order.refunded', partial, { timestamp: at(100) })),
    ).toMatchObject(OK)
    const refunded = { ...order, status: 'refunded', refunded_amount: 2900 }
    expect(
      await postPolarEvent(app.url, polarEvent('order.refunded', refunded, { timestamp: at(200) })),
    ).toMatchObject(OK)
    const rows = await paymentRows(order.id)
    expect(rows.map((row) => [row.status, row.amount, row.amount_refunded])).toEqual([
      ['refunded', -2900, 0],
      ['succeeded', 2900, 2900],
    ])
    expect(rows[0]).toMatchObject({ user_id: user.id, currency: 'usd', provider: 'polar' })
    const match = { user_id: user.id, kind: 'payment_refunded' }
    expect(
      await rowsWhere(app, 'notification_outbox', match, { order: 'created_at' }),
    ).toMatchObject([
      { data: { amount: 1000, refunded_total: 1000, paid: 2900, description: 'Pro payment' } },
      { data: { amount: 1900, refunded_total: 2900, paid: 2900, description: 'Pro payment' } },
    ])
  })
})
