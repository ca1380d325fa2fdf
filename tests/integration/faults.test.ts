import { randomUUID } from 'node:crypto'
import { request as httpRequest } from 'node:http'
import { Readable } from 'node:stream'

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { resetEnvForTests } from '../../app/env.server'
import { deliverDueMails } from '../../app/notifications/delivery.server'
import {
  createSignedInUser,
  failWritesTo,
  ledgerCount,
  polarSubscriber,
  rowsWhere,
  stripeSubscriber,
  subscriptionRowOf,
  testAppForFile,
} from './harness'
import { mailCatcher, mailSubject } from './mail-support'
import {
  orderObject,
  paidEmulatorCheckout,
  polarCheckout,
  polarEvent,
  postPolarEvent,
  subscriptionObject as polarSubscription,
} from './polar-fixtures'
import {
  invoiceObject,
  postStripeEvent,
  stripeEvent,
  subscriptionObject as stripeSubscription,
} from './stripe-fixtures'

// Failure injection: in the database (a trigger that raises inside the ledger transaction) and
// the emulators (5xx, 429, or a hang). Short client timeouts make "never answers" take seconds.
const app = testAppForFile({ polarInvoiceDelayMs: 0 })

const STRIPE_TIMEOUT_MS = 800
const POLAR_TIMEOUT_SECONDS = 0.8
/** Longer than either timeout: the emulator hangs this long before answering. */
const HANG_MS = 2500

const OK = { status: 200, body: { received: true } }
const FAILED = { status: 500, body: { error: 'Error processing webhook' } }
const INVALID = { status: 400, body: { error: 'Invalid webhook payload' } }
const TOO_LARGE = { status: 413, body: { error: 'Payload too large' } }

beforeAll(() => {
  // The clients are created on first use, after this, with these timeouts.
  process.env.STRIPE_TIMEOUT_MS = String(STRIPE_TIMEOUT_MS)
  process.env.POLAR_TIMEOUT_SECONDS = String(POLAR_TIMEOUT_SECONDS)
  resetEnvForTests()
  // Only hand-signed events reach the app from Polar; the emulator's own ones wait.
  app.stack.polar.setWebhookUrl(undefined)
})
afterEach(() => {
  app.stack.stripe.clearFaults()
  app.stack.polar.clearFaults()
})
afterAll(() => {
  delete process.env.STRIPE_TIMEOUT_MS
  delete process.env.POLAR_TIMEOUT_SECONDS
})

type Row = Record<string, unknown>

/** Everything a webhook may write for a user: their subscription row and payments. */
async function stateOf(userId: string) {
  return {
    subscription: await subscriptionRowOf(app, userId),
    payments: await rowsWhere(app, 'payment_history', { user_id: userId }, { order: 'id' }),
  }
}
const ledgerTotal = async () => (await rowsWhere(app, 'webhook_events', {})).length

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 10) + seconds * 1000).toISOString()

// The database fails during a webhook: 500, no partial write, the provider's retry applies.
// (A subscription event's rollback at the ledger itself: tests/db/webhook-apply.test.ts.)

interface WritePath {
  name: string
  table: 'user_subscriptions' | 'payment_history' | 'webhook_events'
  /** Creates the user and whatever must exist before; returns the delivery to fail. */
  prepare(): Promise<{ userId: string; deliver: () => Promise<{ status: number; body: Row }> }>
  /** What the successful retry must have written. */
  expectApplied(state: Awaited<ReturnType<typeof stateOf>>): void
}

const writePaths: WritePath[] = [
  {
    name: 'Stripe subscription (customer.subscription.updated over an existing row)',
    table: 'user_subscriptions',
    async prepare() {
      const user = await createSignedInUser(app)
      const id = `sub_${randomUUID().slice(0, 12)}`
      const base = { id, userId: user.id, customer: `cus_${id}` }
      const created = { created: 1_780_000_000 }
      const event0 = stripeEvent('customer.subscription.created', stripeSubscription(base), created)
      expect(await postStripeEvent(app.url, event0)).toEqual(OK)
      const event = stripeEvent(
        'customer.subscription.updated',
        stripeSubscription({ ...base, cancelAtPeriodEnd: true, feedback: 'too_expensive' }),
        { created: 1_780_000_100 },
      )
      return { userId: user.id, deliver: () => postStripeEvent(app.url, event) }
    },
    expectApplied: ({ subscription }) =>
      expect(subscription).toMatchObject({
        cancel_at_period_end: true,
        cancellation_feedback: 'too_expensive',
      }),
  },
  {
    name: 'the ledger itself (a Stripe customer.subscription.created)',
    table: 'webhook_events',
    async prepare() {
      const user = await createSignedInUser(app)
      const event = stripeEvent(
        'customer.subscription.created',
        stripeSubscription({ userId: user.id }),
      )
      return { userId: user.id, deliver: () => postStripeEvent(app.url, event) }
    },
    expectApplied: ({ subscription }) => expect(subscription).toMatchObject({ status: 'active' }),
  },
  {
    name: 'Stripe payment (invoice.payment_succeeded)',
    table: 'payment_history',
    async prepare() {
      const user = await createSignedInUser(app)
      const invoice = invoiceObject({ subscription: 'sub_dbfault', userId: user.id, amount: 4321 })
      const event = stripeEvent('invoice.payment_succeeded', invoice)
      return { userId: user.id, deliver: () => postStripeEvent(app.url, event) }
    },
    expectApplied: ({ payments }) =>
      expect(payments).toMatchObject([{ provider: 'stripe', amount: 4321, status: 'paid' }]),
  },
  {
    name: 'Polar order.paid (after the invoice was fetched)',
    table: 'payment_history',
    async prepare() {
      const { user, order } = await polarSubscriber(app)
      const event = polarEvent('order.paid', order)
      const id = `msg_${randomUUID()}`
      return { userId: user.id, deliver: () => postPolarEvent(app.url, event, { id }) }
    },
    expectApplied: ({ payments }) =>
      expect(payments).toMatchObject([{ provider: 'polar', status: 'succeeded' }]),
  },
]

describe('the database fails during a webhook', () => {
  it.each(writePaths)(
    '$name: 500, neither ledger nor rows written, the retry applies',
    async (path) => {
      const { userId, deliver } = await path.prepare()
      const before = await stateOf(userId)
      const ledgerBefore = await ledgerTotal()
      const restore = await failWritesTo(app, path.table)
      let first
      try {
        first = await deliver()
      } finally {
        await restore()
      }
      expect(first).toMatchObject(FAILED)
      // No partial write: the row(s) are exactly as before and the ledger has no new entry.
      expect(await stateOf(userId)).toEqual(before)
      expect(await ledgerTotal()).toBe(ledgerBefore)

      // The provider retries the same delivery: it applies, once.
      expect(await deliver()).toMatchObject(OK)
      const after = await stateOf(userId)
      path.expectApplied(after)
      expect(await deliver()).toMatchObject(OK)
      expect(await stateOf(userId)).toEqual(after)
    },
  )
})

type ProviderFault = '5xx' | '429' | 'timeout'
const PROVIDER_FAULTS: ProviderFault[] = ['5xx', '429', 'timeout']

const FAULT_OF = { '5xx': { status: 503 }, '429': { status: 429 }, timeout: { delayMs: HANG_MS } }
/** Stripe: the SDK retries 5xx and network errors twice (3 attempts), never a 429. */
function stripeFault(kind: ProviderFault, method: string, path: string) {
  app.stack.stripe.injectFault({ method, path, ...FAULT_OF[kind], count: 3 })
}
/** Polar: the SDK does not retry. */
function polarFault(kind: ProviderFault, method: string, path: string) {
  app.stack.polar.addFault({ method, path, ...FAULT_OF[kind], count: 1 })
}
const STRIPE_MESSAGES: Record<ProviderFault, RegExp> = {
  '5xx': /^An unknown error occurred \(injected by the emulator\)\.$/,
  '429': /^Too many requests hit the API too quickly\.$/,
  timeout: /^Request aborted due to timeout being reached \(\d+ms\)$/,
}

describe.each(PROVIDER_FAULTS)('Stripe answers %s', (kind) => {
  it('checkout: 500 with the provider message, no redirect, nothing written; then it works', async () => {
    const user = await createSignedInUser(app)
    stripeFault(kind, 'POST', '/v1/checkout/sessions')
    const checkout = () =>
      fetch(`${app.url}/api/checkout_sessions`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: user.cookie },
        body: new URLSearchParams({ price_id: catalogPlan('pro').stripe.priceId }).toString(),
      })
    const response = await checkout()
    expect([response.status, response.headers.get('location')]).toEqual([500, null])
    expect(await response.json()).toEqual({ error: expect.stringMatching(STRIPE_MESSAGES[kind]) })
    expect(await stateOf(user.id)).toEqual({ subscription: null, payments: [] })

    app.stack.stripe.clearFaults()
    expect((await checkout()).status).toBe(303)
  })

  it('portal: 500 "Internal server error", the row untouched; then it works', async () => {
    const { user } = await stripeSubscriber(app)
    const before = await stateOf(user.id)
    stripeFault(kind, 'POST', '/v1/billing_portal/sessions')
    const portal = () =>
      fetch(`${app.url}/api/customer_portal`, { method: 'POST', headers: { cookie: user.cookie } })
    const response = await portal()
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: 'Internal server error' })
    expect(await stateOf(user.id)).toEqual(before)
    app.stack.stripe.clearFaults()
    expect((await portal()).status).toBe(200)
  })

  it('subscription fetch (an invoice naming no subscription): 500 to Stripe, nothing recorded, the retry records it', async () => {
    const { user, customer } = await stripeSubscriber(app)
    const before = await stateOf(user.id)
    const invoice = invoiceObject({ subscription: null, customer: customer.id, amount: 1500 })
    const event = stripeEvent('invoice.payment_succeeded', invoice)
    stripeFault(kind, 'GET', '/v1/subscriptions')
    expect(await postStripeEvent(app.url, event)).toEqual(FAILED)
    expect(await ledgerCount(app, event.id)).toBe(0)
    expect(await stateOf(user.id)).toEqual(before)

    app.stack.stripe.clearFaults()
    expect(await postStripeEvent(app.url, event)).toEqual(OK)
    const { payments } = await stateOf(user.id)
    expect(payments.filter((row) => row.provider_payment_id === invoice.id)).toMatchObject([
      { amount: 1500, user_id: user.id },
    ])
    expect(payments).toHaveLength(before.payments.length + 1)
    expect(await ledgerCount(app, event.id)).toBe(1)
  })

  it('invoice payments (the PaymentIntent): 200 to Stripe, the payment recorded without it', async () => {
    const { user } = await stripeSubscriber(app)
    const invoice = invoiceObject({ subscription: 'sub_pifault', userId: user.id, amount: 1700 })
    const event = stripeEvent('invoice.payment_succeeded', invoice)
    stripeFault(kind, 'GET', '/v1/invoice_payments')
    expect(await postStripeEvent(app.url, event)).toEqual(OK)
    expect(await ledgerCount(app, event.id)).toBe(1)
    const { payments } = await stateOf(user.id)
    expect(payments.filter((row) => row.provider_payment_id === invoice.id)).toMatchObject([
      { amount: 1700, user_id: user.id, provider_charge_id: null },
    ])
    // Filled in later by the billing page: deferred-lookups.test.ts.
  })
})

it('Stripe fails while a payment-failed email needs the subscription: answers 500 without recording the event, so the retry still queues the email', async () => {
  const mails = mailCatcher()
  const { user, customer } = await stripeSubscriber(app)
  const failureMails = () =>
    mails.to(user.email).filter((mail) => mail.subject.includes('did not go through'))
  const invoice = {
    ...invoiceObject({ subscription: null, customer: customer.id }),
    customer_email: user.email,
    status: 'open',
  }
  const event = stripeEvent('invoice.payment_failed', invoice)
  stripeFault('5xx', 'GET', '/v1/subscriptions')
  expect(await postStripeEvent(app.url, event)).toEqual(FAILED)
  expect(await ledgerCount(app, event.id)).toBe(0)
  await deliverDueMails(mails.transport)
  expect(failureMails()).toEqual([])
  app.stack.stripe.clearFaults()
  expect(await postStripeEvent(app.url, event)).toEqual(OK)
  expect(await postStripeEvent(app.url, event)).toEqual(OK)
  await deliverDueMails(mails.transport)
  expect(failureMails().map((mail) => mail.subject)).toEqual([mailSubject('payment_failed')])
})

describe.each(PROVIDER_FAULTS)('Polar answers %s', (kind) => {
  it('checkout: 500 with the spec message, no redirect, nothing written; then it works', async () => {
    const user = await createSignedInUser(app)
    const checkouts = app.stack.polar.state.checkouts.size
    polarFault(kind, 'POST', '/v1/checkouts')
    const checkout = () =>
      polarCheckout(app, { products: catalogPlan('pro').polar.productId }, user.cookie)
    const response = await checkout()
    expect([response.status, response.headers.get('location')]).toEqual([500, null])
    expect(await response.json()).toEqual({
      error: 'Could not start the checkout. Please try again.',
    })
    expect(await stateOf(user.id)).toEqual({ subscription: null, payments: [] })
    if (kind !== 'timeout') expect(app.stack.polar.state.checkouts.size).toBe(checkouts)
    expect((await checkout()).status).toBe(307)
  })

  it('portal: 500 "Something went wrong", the row untouched; then it works', async () => {
    const { user } = await polarSubscriber(app)
    const before = await stateOf(user.id)
    polarFault(kind, 'POST', '/v1/customer-sessions')
    const portal = () => fetch(`${app.url}/api/portal`, { headers: { cookie: user.cookie } })
    const response = await portal()
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: 'Something went wrong' })
    expect(await stateOf(user.id)).toEqual(before)
    expect((await portal()).status).toBe(200)
  })

  it.each(['POST', 'GET'])(
    'invoice retrieval (%s /v1/orders/{id}/invoice on order.paid): 200 to Polar, the payment recorded without its URL',
    async (method) => {
      const { user, order } = await polarSubscriber(app)
      const before = await stateOf(user.id)
      polarFault(kind, method, `/v1/orders/${order.id}/invoice`)
      const event = polarEvent('order.paid', order)
      const first = await postPolarEvent(app.url, event)
      expect(first).toMatchObject(OK)
      expect(await ledgerCount(app, first.id)).toBe(1)
      const { payments } = await stateOf(user.id)
      expect(payments).toHaveLength(before.payments.length + 1)
      expect(payments.filter((row) => row.provider_payment_id === order.id)).toMatchObject([
        { status: 'succeeded', invoice_url: null },
      ])
      // Filled in later by order.updated or the billing page: deferred-lookups.test.ts.
    },
  )
})

// Concurrent duplicates and the ledger's other ordering rules: tests/db/webhook-apply.test.ts.
describe('out-of-order and same-second events', () => {
  it('Stripe: created(incomplete) arriving after updated(active) of the same second does not undo it', async () => {
    const user = await createSignedInUser(app)
    const id = `sub_${randomUUID().slice(0, 12)}`
    const sub = (status: string) =>
      stripeSubscription({ id, userId: user.id, customer: `cus_${id}`, status })
    const second = 1_780_000_500
    const updated = stripeEvent('customer.subscription.updated', sub('active'), { created: second })
    const created = stripeEvent('customer.subscription.created', sub('incomplete'), {
      created: second,
    })
    expect(await postStripeEvent(app.url, updated)).toEqual(OK)
    expect(await postStripeEvent(app.url, created)).toEqual(OK)
    expect(await ledgerCount(app, created.id)).toBe(1)
    expect((await stateOf(user.id)).subscription).toMatchObject({ status: 'active' })
    // ...and deleted in that same second does end it (further along the lifecycle).
    const deleted = stripeEvent('customer.subscription.deleted', sub('canceled'), {
      created: second,
    })
    expect(await postStripeEvent(app.url, deleted)).toEqual(OK)
    expect((await stateOf(user.id)).subscription).toMatchObject({ status: 'canceled' })
  })

  it('Polar: revoked arriving before an older updated keeps the subscription ended', async () => {
    const user = await createSignedInUser(app)
    const subscriptionId = randomUUID()
    const sub = (options: Parameters<typeof polarSubscription>[0]) =>
      polarSubscription({ id: subscriptionId, customerId: 'c1', userId: user.id, ...options })
    const deliveries = [
      polarEvent('subscription.created', sub({}), { timestamp: at(0) }),
      polarEvent('subscription.revoked', sub({ status: 'canceled', endedAt: at(90) }), {
        timestamp: at(90),
      }),
      polarEvent('subscription.updated', sub({ cancelAtPeriodEnd: true }), { timestamp: at(60) }),
      polarEvent('subscription.uncanceled', sub({}), { timestamp: at(70) }),
    ]
    for (const event of deliveries) expect(await postPolarEvent(app.url, event)).toMatchObject(OK)
    expect((await stateOf(user.id)).subscription).toMatchObject({
      status: 'canceled',
      cancel_at_period_end: false,
    })
  })

  it('Polar: a full refund arriving before the partial one keeps the full refunded total', async () => {
    const user = await createSignedInUser(app)
    const order = orderObject({ subscriptionId: null, userId: user.id, netAmount: 2900 })
    const full = { ...order, status: 'refunded', refunded_amount: 2900 }
    const partial = { ...order, status: 'partially_refunded', refunded_amount: 1000 }
    expect(
      await postPolarEvent(app.url, polarEvent('order.refunded', full, { timestamp: at(200) })),
    ).toMatchObject(OK)
    expect(
      await postPolarEvent(app.url, polarEvent('order.refunded', partial, { timestamp: at(100) })),
    ).toMatchObject(OK)
    expect((await stateOf(user.id)).payments).toMatchObject([
      { provider_payment_id: order.id, status: 'refunded', amount: -2900 },
    ])
  })

  it('Polar: order.paid before subscription.created still records the payment', async () => {
    const user = await createSignedInUser(app)
    const paid = await paidEmulatorCheckout(app, user.id)
    expect(await postPolarEvent(app.url, polarEvent('order.paid', paid.order))).toMatchObject(OK)
    expect(
      await postPolarEvent(app.url, polarEvent('subscription.created', paid.subscription)),
    ).toMatchObject(OK)
    const state = await stateOf(user.id)
    expect(state.payments).toMatchObject([
      { provider_payment_id: paid.order.id, status: 'succeeded' },
    ])
    expect(state.subscription).toMatchObject({ polar_subscription_id: paid.subscription.id })
  })
})

describe('a valid signature over a body that is not an event', () => {
  it.each([
    ['a truncated object', '{"id":"evt_trunc","type":"invoice.payment_succeeded","data":{'],
    ['JSON null', 'null'],
    ['a JSON array', '[1,2,3]'],
    ['a string', '"invoice.payment_succeeded"'],
    ['an event without created', '{"id":"evt_nc","type":"invoice.payment_succeeded","data":{}}'],
    ['an event without data', '{"id":"evt_nd","type":"invoice.paid","created":1780000000}'],
  ])('Stripe: %s answers 400 and writes nothing', async (_label, body) => {
    const before = await ledgerTotal()
    expect(await postStripeEvent(app.url, body)).toEqual(INVALID)
    expect(await ledgerTotal()).toBe(before)
  })
})

// Streamed without a Content-Length (chunked): the cap must cut the body off while reading.

function postChunked(path: string, chunks: number, chunkSize: number) {
  const headers = {
    'content-type': 'application/json',
    'transfer-encoding': 'chunked',
    'stripe-signature': 't=1,v1=abc',
    'webhook-id': 'msg_chunked',
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    'webhook-signature': 'v1,abc',
  }
  const { port } = new URL(app.url)
  return new Promise<{ status: number; body: Row }>((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, method: 'POST', headers }
    const req = httpRequest(options, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString()) })
      })
      res.on('error', reject)
    })
    // The server may close the connection once it has refused the body.
    req.on('error', () => {})
    Readable.from(Array.from({ length: chunks }, () => Buffer.alloc(chunkSize, 'x'))).pipe(req)
  })
}

describe('an oversized body without Content-Length', () => {
  it.each(['/api/webhooks/stripe', '/api/webhooks/polar'])(
    '%s: 413 once the stream passes 1 MB',
    async (path) => {
      expect(await postChunked(path, 20, 64 * 1024)).toEqual(TOO_LARGE)
    },
  )
})
