import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { applyPolarEvent } from '~/billing/polar/webhook.server'
import { database } from '~/lib/database/database.server'
import type { LedgerEvent } from '~/subscriptions/store.server'
import * as store from '~/subscriptions/store.server'

import {
  PolarEnvelopeSchema,
  polarOrderPayment,
  PolarOrderSchema,
  polarPlanName,
  polarRefundPayment,
  polarSubscriptionFields,
  PolarSubscriptionSchema,
  polarUserLink,
} from './events'
import { fetchOrderInvoiceUrl } from './invoice.server'

// Only for the dispatch tests at the end (applyPolarEvent); the mapping itself is pure.
vi.mock('~/subscriptions/store.server', async () =>
  (await import('~/subscriptions/store.test-support')).mockedLedgerStore(),
)
vi.mock('./invoice.server', () => ({
  fetchOrderInvoiceUrl: vi.fn(async () => 'https://polar.example/invoices/inv_1.pdf'),
}))
vi.mock('~/lib/database/database.server', () => ({ database: vi.fn() }))
vi.mock('~/lib/server/logger.server', () => ({
  logger: { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() },
}))

const NOV1 = '2026-11-01T10:00:00.000000Z'
const DEC1 = '2026-12-01T10:00:00.000000Z'
const PAID_AT = '2026-11-01T10:00:02.654321Z'
const USER_ID = '5b0d3f4e-7c1a-4c4e-9f0a-00000000c0de'
const OTHER_USER_ID = '5b0d3f4e-7c1a-4c4e-9f0a-00000000beef'
const SUB_ID = 'e1c3b0d4-6a7f-4b2e-8c9d-0a1b2c3d4e5f'
const CUSTOMER_ID = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a'
const PRO_ID = '5b0d3f4e-7c1a-4c4e-9f0a-0000000000b2'
const ORDER_ID = '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a'

type Fields = Record<string, unknown>

/** The fields events.ts reads of a customer, bound to USER_ID unless `fields` say otherwise. */
const customer = (fields: Fields = {}) => ({ id: CUSTOMER_ID, external_id: USER_ID, ...fields })
/** What our checkout links a subscription or order to. */
const PRO = { id: PRO_ID, name: 'Pro' }
const LINKED = { metadata: { user_id: USER_ID }, customer: customer(), product: PRO }

/** A subscription (wire format, snake_case) of only the required fields. */
const BARE_SUB = { id: SUB_ID, status: 'incomplete', customer_id: CUSTOMER_ID, product_id: PRO_ID }
/** An order of only the required fields. */
const BARE_ORDER = { id: ORDER_ID, created_at: PAID_AT, total_amount: 3190, currency: 'usd' }

/** The fields read of a subscription and of an order as Polar sends them. */
const ACTIVE = { ...BARE_SUB, status: 'active', recurring_interval: 'month', ...LINKED }
const PAID_ORDER = { ...BARE_ORDER, status: 'paid', subscription_id: SUB_ID, ...LINKED }
const PERIODS = { current_period_start: NOV1, current_period_end: DEC1 }
const subscription = (overrides: Fields = {}) => ({ ...ACTIVE, ...PERIODS, ...overrides })
const order = (overrides: Fields = {}) => ({ ...PAID_ORDER, ...overrides })

const parseSubscription = (value: unknown) => PolarSubscriptionSchema.parse(value)
const parseOrder = (value: unknown) => PolarOrderSchema.parse(value)

/** What every subscription event writes of the default fixture (each carries it whole). */
const createdFields = {
  provider: 'polar',
  polar_customer_id: CUSTOMER_ID,
  polar_subscription_id: SUB_ID,
  polar_product_id: PRO_ID,
  plan_name: 'Pro',
  status: 'active',
  billing_cycle: 'month',
  current_period_start: NOV1,
  current_period_end: DEC1,
  cancel_at_period_end: false,
  cancel_at: null,
  canceled_at: null,
}

describe('PolarSubscriptionSchema and PolarOrderSchema', () => {
  it('keep unknown fields and need none of the optional ones', () => {
    expect(parseSubscription(subscription({ new_field: 1 }))).toHaveProperty('new_field', 1)
    expect(parseOrder(order({ new_field: 'x' }))).toHaveProperty('new_field', 'x')
    expect(() => parseSubscription(BARE_SUB)).not.toThrow()
    expect(() => parseOrder(BARE_ORDER)).not.toThrow()
  })

  const camelCase = { customerId: CUSTOMER_ID, productId: PRO_ID }
  it.each<Fields>([
    ...['id', 'status', 'customer_id', 'product_id'].map((field) => ({ [field]: undefined })),
    // The camelCase shape of the 0.x SDK.
    { ...camelCase, customer_id: undefined, product_id: undefined },
  ])('rejects a subscription with %o', (overrides) => {
    expect(PolarSubscriptionSchema.safeParse(subscription(overrides)).success).toBe(false)
  })

  it.each<Fields>([
    ...['id', 'created_at', 'total_amount', 'currency'].map((field) => ({ [field]: undefined })),
    { total_amount: 31.9 },
  ])('rejects an order with %o', (overrides) => {
    expect(PolarOrderSchema.safeParse(order(overrides)).success).toBe(false)
  })
})

describe('PolarEnvelopeSchema', () => {
  it('accepts the body Polar sends, keeping unknown fields, or one without a timestamp; rejects one without a type', () => {
    const body = { type: 'subscription.created', timestamp: '2026-11-01T10:00:03.123456Z' }
    const sent = { ...body, api_version: '2026-10', data: subscription() }
    expect(PolarEnvelopeSchema.parse(sent)).toEqual(sent)
    expect(PolarEnvelopeSchema.safeParse({ type: 'order.paid', data: {} }).success).toBe(true)
    expect(PolarEnvelopeSchema.safeParse({ timestamp: 'x', data: {} }).success).toBe(false)
    expect(PolarEnvelopeSchema.safeParse({ type: 42, data: {} }).success).toBe(false)
  })
})

describe('polarUserLink', () => {
  const [U, O] = [USER_ID, OTHER_USER_ID]
  // Our checkout's metadata user_id; the customer's external_id and metadata user_id.
  type Bound = [string | null, string?] | null
  it.each<[string, string | null | undefined, Bound, string | null, boolean]>([
    ['trusts the metadata when the customer is bound to that user', U, [U, O], U, false],
    ['trusts it when the customer is bound to nobody', U, [null], U, false],
    ["refuses a customer bound to someone else (another user's)", U, [O, U], null, true],
    ['refuses a customer bound to a foreign external id', U, ['ext_abc'], null, true],
    // No user_id of our checkout's: an anonymous purchase.
    ["never reads the customer's metadata", undefined, [null, O], null, false],
    ["never reads the customer's external id", undefined, [O], null, false],
    ['ignores a metadata user_id that is not a UUID', 'user_123', [O, U], null, false],
    ['lower-cases a UUID', U.toUpperCase(), null, U, false],
    ['is nobody without metadata', null, null, null, false],
  ])('%s', (_, metadataUser, boundTo, userId, refused) => {
    const metadata = metadataUser === null ? null : metadataUser ? { user_id: metadataUser } : {}
    const [externalId, customerUser] = boundTo ?? []
    const bound = customer({ external_id: externalId, metadata: { user_id: customerUser } })
    const value = subscription({ metadata, customer: boundTo && bound })
    expect(polarUserLink(parseSubscription(value))).toEqual({ userId, refused })
  })
})

describe('polarPlanName', () => {
  it.each<[{ name?: string | null } | null | undefined, string]>([
    [{ name: 'Pro' }, 'Pro'],
    [{ name: '  Starter  ' }, 'Starter'],
    ...[{ name: '' }, { name: '   ' }, { name: null }, {}, null, undefined].map(
      (product): [typeof product, string] => [product, 'Unknown Plan'],
    ),
  ])('%j → %s', (value, expected) => {
    expect(polarPlanName(value)).toBe(expected)
  })
})

const NOW = '2026-11-21T12:00:00.000Z'

describe('polarSubscriptionFields', () => {
  afterEach(() => vi.useRealTimers())

  const CANCELED = '2026-11-20T08:30:00.000000Z'
  const ENDED = '2026-11-20T08:30:01.000000Z'
  const revoked = (at: string) => ({
    status: 'canceled',
    cancel_at_period_end: false,
    canceled_at: at,
  })
  const canceledThen = subscription({ status: 'canceled', canceled_at: CANCELED, ended_at: ENDED })
  const ended = subscription({ status: 'unpaid', ended_at: ENDED })
  const immediately = { status: 'canceled', canceled_at: CANCELED, ends_at: CANCELED }
  // A cancellation at period end, the way Polar sends it on subscription.canceled/.updated.
  const atPeriodEnd = { cancel_at_period_end: true, canceled_at: CANCELED, ends_at: DEC1 }
  const endOnly = subscription({ ...atPeriodEnd, ends_at: null })
  const cancellation = { cancel_at_period_end: true, cancel_at: DEC1, canceled_at: CANCELED }
  const otherProduct = '5b0d3f4e-7c1a-4c4e-9f0a-0000000000a1'
  const starter = { product_id: otherProduct, product: { id: otherProduct, name: 'Starter' } }
  const yearly = { recurring_interval: 'year', current_period_end: NOW }
  const noPeriods = { billing_cycle: null, current_period_start: null, current_period_end: null }
  const bareFields = { ...noPeriods, plan_name: 'Unknown Plan', status: 'incomplete' }
  const trialYear = { status: 'trialing', billing_cycle: 'year', current_period_end: NOW }

  it.each<[string, string, Fields, Fields]>([
    ['created', 'ids, product, plan name, status, cycle, periods', subscription(), {}],
    ['created', 'a yearly trial', subscription({ ...yearly, status: 'trialing' }), trialYear],
    ['created', 'missing optional fields, a product too', BARE_SUB, bareFields],
    [
      'updated',
      'status, plan, periods and no cancellation',
      subscription({ ...starter, status: 'past_due' }),
      { polar_product_id: otherProduct, plan_name: 'Starter', status: 'past_due' },
    ],
    ...['updated', 'canceled'].flatMap((type): [string, string, Fields, Fields][] => [
      [type, 'at period end, cancel_at from ends_at', subscription(atPeriodEnd), cancellation],
      [type, 'at period end, cancel_at from the period end', endOnly, cancellation],
    ]),
    [
      'canceled',
      'not at period end: cancel_at from ends_at',
      subscription({ ...immediately, ended_at: CANCELED }),
      { status: 'canceled', cancel_at: CANCELED, canceled_at: CANCELED },
    ],
    ['canceled', 'nor ends_at: no cancel_at', subscription({ cancel_at_period_end: null }), {}],
    ['active', 'the snapshot, status active', subscription({ status: 'incomplete' }), {}],
    ['uncanceled', 'the snapshot, cancellation cleared', subscription(atPeriodEnd), {}],
    ['revoked', 'canceled now, canceled_at from the payload', canceledThen, revoked(CANCELED)],
    ['revoked', 'canceled now, canceled_at from ended_at', ended, revoked(ENDED)],
    ['revoked', 'canceled now, canceled_at now', subscription(), revoked(NOW)],
  ])('subscription.%s: %s', (type, _, value, changes) => {
    vi.useFakeTimers({ now: new Date(NOW) })
    expect(polarSubscriptionFields(`subscription.${type}`, parseSubscription(value))).toEqual({
      ...createdFields,
      ...changes,
    })
  })

  it.each(['subscription.past_due', 'subscription.something_new', 'order.paid', ''])(
    '%s is not handled → null',
    (type) => {
      expect(polarSubscriptionFields(type, parseSubscription(subscription()))).toBeNull()
    },
  )
})

/** The payment_history row of `order()` paid by USER_ID, with its invoice URL. */
const ORDER_PAYMENT = {
  user_id: USER_ID,
  provider: 'polar',
  polar_subscription_id: SUB_ID,
  provider_payment_id: ORDER_ID,
  amount: 3190,
  currency: 'usd',
  status: 'succeeded',
  description: 'Pro payment',
  invoice_url: null,
  created_at: PAID_AT,
}

describe('polarOrderPayment (order.paid)', () => {
  const generic = { description: 'Subscription payment' }
  const unnamed = { product: { id: PRO_ID, name: '' }, currency: 'EUR' }

  it.each<[string, Fields, string | null, Fields]>([
    ['what the card was charged: the total, tax included', order(), USER_ID, {}],
    [
      '"Subscription payment" without a product name, and a lower-cased currency',
      order(unnamed),
      USER_ID,
      { ...generic, currency: 'eur' },
    ],
    ['no product and no user', order({ product: null }), null, { ...generic, user_id: null }],
    [
      'an order without a subscription (one-off purchase): no subscription id',
      BARE_ORDER,
      USER_ID,
      { ...generic, polar_subscription_id: null },
    ],
  ])('maps %s', (_, value, userId, changes) => {
    expect(polarOrderPayment(parseOrder(value), userId)).toEqual({ ...ORDER_PAYMENT, ...changes })
  })
})

describe('polarRefundPayment (order.refunded)', () => {
  const at = '2026-11-25T09:00:00.000Z'
  const refund = { ...ORDER_PAYMENT, status: 'refunded', description: 'Pro refund', created_at: at }
  const full = { status: 'refunded', refunded_amount: 2900, refunded_tax_amount: 290 }

  const partial = { status: 'partially_refunded', refunded_amount: 1000 }
  it.each<[string, Fields, string | null, number, Fields?]>([
    ['a partial refund: minus the refunded amount, at the event time', partial, USER_ID, -1000],
    ['a full refund: what went back to the card, tax included', full, USER_ID, -3190],
    ...[0, null, undefined].map((refunded): [string, Fields, null, number] => [
      `minus the total when refunded_amount is ${refunded}`,
      { status: 'refunded', refunded_amount: refunded },
      null,
      -3190,
    ]),
    [
      'without a product name',
      { refunded_amount: 1000, product: { id: PRO_ID, name: null } },
      USER_ID,
      -1000,
      { description: 'Subscription refund' },
    ],
  ])('%s', (_, overrides, userId, amount, changes) => {
    expect(polarRefundPayment(parseOrder(order(overrides)), userId, at)).toEqual({
      ...refund,
      user_id: userId,
      amount,
      ...changes,
    })
  })
})

describe('applyPolarEvent: which store call each event type makes', () => {
  const AT = '2026-11-01T10:00:03.123Z'
  const event = (type: string): LedgerEvent => ({
    provider: 'polar',
    id: `msg_${type}`,
    type,
    occurredAt: AT,
  })
  beforeEach(() => vi.clearAllMocks())

  const canceled = { canceled_at: '2026-11-20T08:30:00Z' }
  // Without a user id too: the store gets user null.
  it.each<[string, Fields, string | null, Fields]>([
    ...['created', 'updated', 'active', 'canceled', 'uncanceled'].map(
      (type): [string, Fields, string, Fields] => [`subscription.${type}`, {}, USER_ID, {}],
    ),
    ['subscription.revoked', canceled, USER_ID, { ...canceled, status: 'canceled' }],
    ['subscription.created', { metadata: {} }, null, {}],
  ])('%s %o → applySubscriptionEvent: user and fields', async (type, data, userId, changes) => {
    await expect(applyPolarEvent(event(type), subscription(data))).resolves.toBe('applied')
    const fields = { ...createdFields, ...changes }
    expect(store.applySubscriptionEvent).toHaveBeenCalledWith(event(type), userId, fields)
    expect(store.recordEvent).not.toHaveBeenCalled()
  })

  it.each<[string, unknown, string]>([
    ['subscription.past_due', subscription(), 'unhandled'],
    // A paid order's creation, and its update before the invoice is generated.
    ['order.created', order(), 'logged'],
    ['order.updated', order(), 'logged'],
    ['checkout.updated', { id: 'x' }, 'unhandled'],
  ])('%s is only recorded', async (type, data, answer) => {
    await expect(applyPolarEvent(event(type), data)).resolves.toBe(answer)
    expect(store.recordEvent).toHaveBeenCalledWith(event(type))
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
    expect(fetchOrderInvoiceUrl).not.toHaveBeenCalled()
  })

  /** The payment row's invoice URL fill (`fill_payment_details`), as the database gateway takes it. */
  function databaseUpdates() {
    const update = vi.fn()
    const rpc = async (_name: string, args: { p_fields: unknown }) => (
      update(args.p_fields),
      { data: 1, error: null }
    )
    vi.mocked(database).mockReturnValue({ rpc } as unknown as ReturnType<typeof database>)
    return update
  }

  // No user lookup of its own: the ledger call finds the subscription's user
  // (tests/db/webhook-apply.test.ts); the user the order names goes along as the fallback.
  it.each([
    ['then the invoice URL', 'https://polar.example/invoices/inv_1.pdf'],
    ['without a URL when Polar cannot give the invoice', null],
  ])('order.paid → one recordPaymentEvent, %s', async (_, url) => {
    const update = databaseUpdates()
    if (!url) vi.mocked(fetchOrderInvoiceUrl).mockRejectedValueOnce(new Error('Polar answered 404'))
    await expect(applyPolarEvent(event('order.paid'), order())).resolves.toBe('applied')
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(event('order.paid'), ORDER_PAYMENT)
    const options = { generate: true, timeoutSeconds: expect.any(Number) }
    expect(fetchOrderInvoiceUrl).toHaveBeenCalledWith(ORDER_ID, options)
    expect(update.mock.calls).toEqual(url ? [[{ invoice_url: url }]] : [])
  })

  it.each(['no_user', 'duplicate', 'exists'] as const)(
    'order.paid the ledger answers %s for asks Polar for nothing',
    async (answer) => {
      vi.mocked(store.recordPaymentEvent).mockResolvedValueOnce(answer)
      const data = order({ metadata: {}, subscription_id: null })
      await expect(applyPolarEvent(event('order.paid'), data)).resolves.toBe(answer)
      expect(fetchOrderInvoiceUrl).not.toHaveBeenCalled()
    },
  )

  const pending = { status: 'pending' }
  const refunded = { amount: -2900, status: 'refunded', description: 'Pro refund', created_at: AT }
  it.each<[string, string, Fields, Fields]>([
    ['order.created', 'of a renewal being charged: pending', pending, pending],
    ['order.paid', 'of a subscription naming no user', { metadata: {} }, { user_id: null }],
    ['order.refunded', 'the negative row at the event time', { refunded_amount: 2900 }, refunded],
  ])('%s %s → recordPaymentEvent', async (type, _, overrides, changes) => {
    databaseUpdates()
    await expect(applyPolarEvent(event(type), order(overrides))).resolves.toBe('applied')
    const row = { ...ORDER_PAYMENT, ...changes }
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(event(type), row)
  })

  it('a payload of the wrong shape is rejected before any store call', async () => {
    await expect(applyPolarEvent(event('subscription.created'), { id: 'x' })).rejects.toThrow()
    await expect(applyPolarEvent(event('order.paid'), { id: 'x' })).rejects.toThrow()
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
    expect(store.recordEvent).not.toHaveBeenCalled()
  })
})
