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

const USER_ID = '5b0d3f4e-7c1a-4c4e-9f0a-00000000c0de'
const OTHER_USER_ID = '5b0d3f4e-7c1a-4c4e-9f0a-00000000beef'
const ORGANIZATION_ID = '0b8a4f8e-2d4c-4a8e-9d3a-3f1c2e9b7a10'
const SUBSCRIPTION_ID = 'e1c3b0d4-6a7f-4b2e-8c9d-0a1b2c3d4e5f'
const CUSTOMER_ID = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a'
const PRODUCT_ID = '5b0d3f4e-7c1a-4c4e-9f0a-0000000000b2'
const PRICE_ID = '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d'
const ORDER_ID = '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a'

function customer(overrides: Record<string, unknown> = {}) {
  return {
    id: CUSTOMER_ID,
    created_at: '2026-11-01T09:59:58.123456Z',
    modified_at: null,
    metadata: {},
    external_id: null,
    email: 'buyer@example.com',
    email_verified: true,
    type: 'individual',
    name: 'Ada Buyer',
    billing_name: 'Ada Buyer',
    billing_address: { country: 'US', line1: null, line2: null, postal_code: null },
    tax_id: null,
    locale: null,
    organization_id: ORGANIZATION_ID,
    default_payment_method_id: null,
    deleted_at: null,
    avatar_url: 'https://www.gravatar.com/avatar/x?d=404',
    ...overrides,
  }
}

const price = {
  id: PRICE_ID,
  created_at: '2026-01-01T00:00:00Z',
  modified_at: null,
  source: 'catalog',
  amount_type: 'fixed',
  price_currency: 'usd',
  tax_behavior: null,
  is_archived: false,
  product_id: PRODUCT_ID,
  type: 'recurring',
  recurring_interval: 'month',
  price_amount: 2900,
}

function product(overrides: Record<string, unknown> = {}) {
  return {
    id: PRODUCT_ID,
    created_at: '2026-01-01T00:00:00Z',
    modified_at: null,
    trial_interval: null,
    trial_interval_count: null,
    name: 'Pro',
    description: 'For growing teams',
    visibility: 'public',
    recurring_interval: 'month',
    recurring_interval_count: 1,
    is_recurring: true,
    is_archived: false,
    organization_id: ORGANIZATION_ID,
    metadata: {},
    prices: [price],
    benefits: [],
    medias: [],
    attached_custom_fields: [],
    ...overrides,
  }
}

/** A subscription as Polar sends it (wire format, snake_case). */
function subscription(overrides: Record<string, unknown> = {}) {
  return {
    created_at: '2026-11-01T10:00:00.000000Z',
    modified_at: '2026-11-01T10:00:01.000000Z',
    id: SUBSCRIPTION_ID,
    amount: 2900,
    currency: 'usd',
    recurring_interval: 'month',
    recurring_interval_count: 1,
    status: 'active',
    current_period_start: '2026-11-01T10:00:00.000000Z',
    current_period_end: '2026-12-01T10:00:00.000000Z',
    current_meter_period_start: null,
    current_meter_period_end: null,
    trial_start: null,
    trial_end: null,
    cancel_at_period_end: false,
    canceled_at: null,
    started_at: '2026-11-01T10:00:00.000000Z',
    ends_at: null,
    ended_at: null,
    past_due_at: null,
    pause_at_period_end: false,
    paused_at: null,
    resumes_at: null,
    customer_id: CUSTOMER_ID,
    product_id: PRODUCT_ID,
    discount_id: null,
    checkout_id: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d',
    seats: null,
    customer_cancellation_reason: null,
    customer_cancellation_comment: null,
    metadata: { user_id: USER_ID },
    custom_field_data: {},
    customer: customer({ metadata: { user_id: USER_ID }, external_id: USER_ID }),
    product: product(),
    discount: null,
    prices: [price],
    meters: [],
    pending_update: null,
    ...overrides,
  }
}

/** An order as Polar sends it (wire format). */
function order(overrides: Record<string, unknown> = {}) {
  return {
    id: ORDER_ID,
    user_id: CUSTOMER_ID,
    created_at: '2026-11-01T10:00:02.654321Z',
    modified_at: '2026-11-01T10:00:03.000000Z',
    status: 'paid',
    paid: true,
    subtotal_amount: 2900,
    discount_amount: 0,
    net_amount: 2900,
    tax_amount: 290,
    total_amount: 3190,
    applied_balance_amount: 0,
    due_amount: 0,
    refunded_amount: 0,
    refunded_tax_amount: 0,
    currency: 'usd',
    billing_reason: 'subscription_create',
    billing_name: 'Ada Buyer',
    billing_address: null,
    invoice_number: 'ACME-0001',
    is_invoice_generated: false,
    receipt_number: null,
    seats: null,
    customer_id: CUSTOMER_ID,
    product_id: PRODUCT_ID,
    discount_id: null,
    subscription_id: SUBSCRIPTION_ID,
    checkout_id: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d',
    next_payment_attempt_at: null,
    metadata: { user_id: USER_ID },
    custom_field_data: {},
    platform_fee_amount: 0,
    platform_fee_currency: null,
    customer: customer({ metadata: { user_id: USER_ID }, external_id: USER_ID }),
    product: product(),
    discount: null,
    subscription: { id: SUBSCRIPTION_ID, status: 'active', metadata: { user_id: USER_ID } },
    items: [
      {
        created_at: '2026-11-01T10:00:02.654321Z',
        modified_at: null,
        id: 'f0e1d2c3-b4a5-4968-8776-655443322110',
        label: 'Pro',
        amount: 2900,
        tax_amount: 290,
        proration: false,
        product_price_id: PRICE_ID,
      },
    ],
    description: 'Pro',
    refundable_amount: 2900,
    refundable_tax_amount: 290,
    ...overrides,
  }
}

const parseSubscription = (value: unknown) => PolarSubscriptionSchema.parse(value)
const parseOrder = (value: unknown) => PolarOrderSchema.parse(value)

/** The identity columns every subscription event sets. */
const identity = {
  provider: 'polar',
  polar_customer_id: CUSTOMER_ID,
  polar_subscription_id: SUBSCRIPTION_ID,
}

/**
 * The snapshot every subscription event writes for the default fixture (each event carries
 * the whole subscription; see polarSubscriptionFields).
 */
const createdFields = {
  ...identity,
  polar_product_id: PRODUCT_ID,
  plan_name: 'Pro',
  status: 'active',
  billing_cycle: 'month',
  current_period_start: '2026-11-01T10:00:00.000000Z',
  current_period_end: '2026-12-01T10:00:00.000000Z',
  cancel_at_period_end: false,
  cancel_at: null,
  canceled_at: null,
}

/** A cancellation at period end, the way Polar sends it on subscription.canceled/.updated. */
const canceledAtPeriodEnd = {
  cancel_at_period_end: true,
  canceled_at: '2026-11-20T08:30:00.000000Z',
  ends_at: '2026-12-01T10:00:00.000000Z',
  customer_cancellation_reason: 'too_expensive',
  customer_cancellation_comment: 'Maybe later',
}

describe('PolarSubscriptionSchema', () => {
  it('accepts a full wire subscription and keeps unknown fields', () => {
    const parsed = parseSubscription(subscription({ brand_new_field: 1 }))
    expect(parsed).toHaveProperty('brand_new_field', 1)
    expect(parsed).toHaveProperty('started_at', '2026-11-01T10:00:00.000000Z')
  })

  it('accepts a subscription with only the required fields', () => {
    expect(() =>
      parseSubscription({
        id: SUBSCRIPTION_ID,
        status: 'incomplete',
        customer_id: CUSTOMER_ID,
        product_id: PRODUCT_ID,
      }),
    ).not.toThrow()
  })

  it.each([['id'], ['status'], ['customer_id'], ['product_id']])(
    'rejects a subscription without %s',
    (field) => {
      const payload: Record<string, unknown> = subscription()
      delete payload[field]
      expect(PolarSubscriptionSchema.safeParse(payload).success).toBe(false)
    },
  )

  it('rejects the camelCase shape of the 0.x SDK', () => {
    expect(
      PolarSubscriptionSchema.safeParse({
        id: SUBSCRIPTION_ID,
        status: 'active',
        customerId: CUSTOMER_ID,
        productId: PRODUCT_ID,
      }).success,
    ).toBe(false)
  })
})

describe('PolarOrderSchema', () => {
  it('accepts a full wire order and keeps unknown fields', () => {
    const parsed = parseOrder(order({ brand_new_field: 'x' }))
    expect(parsed).toHaveProperty('brand_new_field', 'x')
    expect(parsed).toHaveProperty('invoice_number', 'ACME-0001')
  })

  it('accepts an order with only the required fields', () => {
    expect(() =>
      parseOrder({
        id: ORDER_ID,
        created_at: '2026-11-01T10:00:02Z',
        total_amount: 0,
        currency: 'usd',
      }),
    ).not.toThrow()
  })

  it.each([['id'], ['created_at'], ['total_amount'], ['currency']])(
    'rejects an order without %s',
    (field) => {
      const payload: Record<string, unknown> = order()
      delete payload[field]
      expect(PolarOrderSchema.safeParse(payload).success).toBe(false)
    },
  )

  it('rejects a non-integer total amount', () => {
    expect(PolarOrderSchema.safeParse(order({ total_amount: 31.9 })).success).toBe(false)
  })
})

describe('PolarEnvelopeSchema', () => {
  it('accepts the body Polar sends and keeps unknown fields', () => {
    const body = {
      type: 'subscription.created',
      timestamp: '2026-11-01T10:00:03.123456Z',
      api_version: '2026-10',
      data: subscription(),
    }
    expect(PolarEnvelopeSchema.parse(body)).toEqual(body)
  })

  it('accepts an envelope without a timestamp and rejects one without a type', () => {
    expect(PolarEnvelopeSchema.safeParse({ type: 'order.paid', data: {} }).success).toBe(true)
    expect(PolarEnvelopeSchema.safeParse({ timestamp: 'x', data: {} }).success).toBe(false)
    expect(PolarEnvelopeSchema.safeParse({ type: 42, data: {} }).success).toBe(false)
  })
})

describe('polarUserLink', () => {
  const link = (value: Record<string, unknown>) => polarUserLink(parseSubscription(value))

  it("trusts our checkout's metadata user_id when the customer is bound to that user", () => {
    const value = subscription({
      metadata: { user_id: USER_ID },
      customer: customer({ metadata: { user_id: OTHER_USER_ID }, external_id: USER_ID }),
    })
    expect(link(value)).toEqual({ userId: USER_ID, refused: false })
  })

  it('trusts it when the customer is bound to nobody (no external id)', () => {
    const value = subscription({
      metadata: { user_id: USER_ID },
      customer: customer({ metadata: {}, external_id: null }),
    })
    expect(link(value)).toEqual({ userId: USER_ID, refused: false })
  })

  it("refuses a customer bound to someone else (another user's customer)", () => {
    const value = subscription({
      metadata: { user_id: USER_ID },
      customer: customer({ metadata: { user_id: USER_ID }, external_id: OTHER_USER_ID }),
    })
    expect(link(value)).toEqual({ userId: null, refused: true })
    const foreign = subscription({
      metadata: { user_id: USER_ID },
      customer: customer({ metadata: {}, external_id: 'ext_abc' }),
    })
    expect(link(foreign)).toEqual({ userId: null, refused: true })
  })

  it('never reads the customer: no metadata user_id means nobody (an anonymous purchase)', () => {
    const byCustomerMetadata = subscription({
      metadata: {},
      customer: customer({ metadata: { user_id: OTHER_USER_ID }, external_id: null }),
    })
    expect(link(byCustomerMetadata)).toEqual({ userId: null, refused: false })
    const byExternalId = subscription({
      metadata: {},
      customer: customer({ metadata: {}, external_id: OTHER_USER_ID }),
    })
    expect(link(byExternalId)).toEqual({ userId: null, refused: false })
  })

  it('ignores a metadata user_id that is not a UUID, and lower-cases one that is', () => {
    expect(
      link(
        subscription({
          metadata: { user_id: 'user_123' },
          customer: customer({ external_id: OTHER_USER_ID }),
        }),
      ),
    ).toEqual({ userId: null, refused: false })
    expect(
      link(subscription({ metadata: { user_id: USER_ID.toUpperCase() }, customer: null })),
    ).toEqual({ userId: USER_ID, refused: false })
    expect(link(subscription({ metadata: null, customer: null }))).toEqual({
      userId: null,
      refused: false,
    })
  })

  it('works on orders too', () => {
    expect(polarUserLink(parseOrder(order()))).toEqual({ userId: USER_ID, refused: false })
    const anonymous = order({
      metadata: {},
      customer: customer({ metadata: { user_id: USER_ID }, external_id: OTHER_USER_ID }),
    })
    expect(polarUserLink(parseOrder(anonymous))).toEqual({ userId: null, refused: false })
  })
})

describe('polarPlanName', () => {
  it.each([
    [{ name: 'Pro' }, 'Pro'],
    [{ name: '  Starter  ' }, 'Starter'],
    [{ name: '' }, 'Unknown Plan'],
    [{ name: '   ' }, 'Unknown Plan'],
    [{ name: null }, 'Unknown Plan'],
    [{}, 'Unknown Plan'],
    [null, 'Unknown Plan'],
    [undefined, 'Unknown Plan'],
  ])('%j → %s', (value, expected) => {
    expect(polarPlanName(value)).toBe(expected)
  })
})

describe('polarSubscriptionFields', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('subscription.created: ids, product, plan name, status, cycle, periods, cancel flag', () => {
    expect(
      polarSubscriptionFields('subscription.created', parseSubscription(subscription())),
    ).toEqual(createdFields)
  })

  it('subscription.created: a yearly trial, and Unknown Plan for a product without a name', () => {
    const value = subscription({
      status: 'trialing',
      recurring_interval: 'year',
      current_period_end: '2027-11-01T10:00:00.000000Z',
      trial_start: '2026-11-01T10:00:00.000000Z',
      trial_end: '2026-11-15T10:00:00.000000Z',
      product: product({ name: '  ' }),
    })
    expect(polarSubscriptionFields('subscription.created', parseSubscription(value))).toEqual({
      ...createdFields,
      status: 'trialing',
      billing_cycle: 'year',
      current_period_end: '2027-11-01T10:00:00.000000Z',
      plan_name: 'Unknown Plan',
    })
    const withoutProduct = subscription({ product: null })
    expect(
      polarSubscriptionFields('subscription.created', parseSubscription(withoutProduct)),
    ).toEqual({ ...createdFields, plan_name: 'Unknown Plan' })
  })

  it('subscription.created: missing optional fields map to null and false', () => {
    const value = parseSubscription({
      id: SUBSCRIPTION_ID,
      status: 'incomplete',
      customer_id: CUSTOMER_ID,
      product_id: PRODUCT_ID,
    })
    expect(polarSubscriptionFields('subscription.created', value)).toEqual({
      ...identity,
      polar_product_id: PRODUCT_ID,
      plan_name: 'Unknown Plan',
      status: 'incomplete',
      billing_cycle: null,
      current_period_start: null,
      current_period_end: null,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
    })
  })

  it('subscription.updated: status, plan, periods and no cancellation', () => {
    const value = subscription({
      status: 'past_due',
      product_id: '5b0d3f4e-7c1a-4c4e-9f0a-0000000000a1',
      product: product({ id: '5b0d3f4e-7c1a-4c4e-9f0a-0000000000a1', name: 'Starter' }),
    })
    expect(polarSubscriptionFields('subscription.updated', parseSubscription(value))).toEqual({
      ...createdFields,
      polar_product_id: '5b0d3f4e-7c1a-4c4e-9f0a-0000000000a1',
      plan_name: 'Starter',
      status: 'past_due',
      cancel_at: null,
      canceled_at: null,
    })
  })

  it.each([
    ['subscription.updated', 'ends_at', canceledAtPeriodEnd],
    ['subscription.updated', 'the period end', { ...canceledAtPeriodEnd, ends_at: null }],
    ['subscription.canceled', 'ends_at', canceledAtPeriodEnd],
    ['subscription.canceled', 'the period end', { ...canceledAtPeriodEnd, ends_at: null }],
  ])(
    '%s: a cancellation at period end, cancel_at from %s, and canceled_at',
    (type, _from, fields) => {
      expect(polarSubscriptionFields(type, parseSubscription(subscription(fields)))).toEqual({
        ...createdFields,
        cancel_at_period_end: true,
        cancel_at: '2026-12-01T10:00:00.000000Z',
        canceled_at: '2026-11-20T08:30:00.000000Z',
      })
    },
  )

  it('subscription.active: the snapshot, with the status set to active', () => {
    const value = subscription({ status: 'incomplete' })
    expect(polarSubscriptionFields('subscription.active', parseSubscription(value))).toEqual({
      ...createdFields,
      status: 'active',
    })
  })

  it('subscription.canceled: not at period end → cancel_at from ends_at, else null', () => {
    const immediate = subscription({
      status: 'canceled',
      cancel_at_period_end: false,
      canceled_at: '2026-11-20T08:30:00.000000Z',
      ends_at: '2026-11-20T08:30:00.000000Z',
      ended_at: '2026-11-20T08:30:00.000000Z',
    })
    expect(polarSubscriptionFields('subscription.canceled', parseSubscription(immediate))).toEqual({
      ...createdFields,
      status: 'canceled',
      cancel_at_period_end: false,
      cancel_at: '2026-11-20T08:30:00.000000Z',
      canceled_at: '2026-11-20T08:30:00.000000Z',
    })
    const bare = subscription({ cancel_at_period_end: null })
    expect(polarSubscriptionFields('subscription.canceled', parseSubscription(bare))).toEqual({
      ...createdFields,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
    })
  })

  it('subscription.uncanceled: the snapshot with the cancellation cleared', () => {
    const value = subscription({ status: 'active' })
    expect(polarSubscriptionFields('subscription.uncanceled', parseSubscription(value))).toEqual({
      ...createdFields,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      status: 'active',
    })
  })

  it.each([
    [
      'the payload',
      {
        status: 'canceled',
        canceled_at: '2026-11-20T08:30:00.000000Z',
        ended_at: '2026-11-20T08:30:01.000000Z',
      },
      '2026-11-20T08:30:00.000000Z',
    ],
    [
      'ended_at',
      { status: 'unpaid', ended_at: '2026-11-20T08:30:01.000000Z' },
      '2026-11-20T08:30:01.000000Z',
    ],
    ['now', {}, '2026-11-21T12:00:00.000Z'],
  ])('subscription.revoked: canceled now, canceled_at from %s', (_from, fields, canceledAt) => {
    vi.useFakeTimers()
    vi.setSystemTime(new Date('2026-11-21T12:00:00.000Z'))
    const value = parseSubscription(subscription(fields))
    expect(polarSubscriptionFields('subscription.revoked', value)).toEqual({
      ...createdFields,
      status: 'canceled',
      cancel_at_period_end: false,
      canceled_at: canceledAt,
    })
  })

  it.each([['subscription.past_due'], ['subscription.something_new'], ['order.paid'], ['']])(
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
  polar_subscription_id: SUBSCRIPTION_ID,
  provider_payment_id: ORDER_ID,
  amount: 3190,
  currency: 'usd',
  status: 'succeeded',
  description: 'Pro payment',
  invoice_url: null,
  created_at: '2026-11-01T10:00:02.654321Z',
}

describe('polarOrderPayment (order.paid)', () => {
  const payment = ORDER_PAYMENT

  it('maps what the card was charged (the total, tax included), currency, description, order time', () => {
    expect(polarOrderPayment(parseOrder(order()), USER_ID)).toEqual(payment)
  })

  it('says "Subscription payment" without a product name, and lower-cases the currency', () => {
    const value = order({ product: product({ name: '' }), currency: 'EUR' })
    expect(polarOrderPayment(parseOrder(value), USER_ID)).toEqual({
      ...payment,
      currency: 'eur',
      description: 'Subscription payment',
      invoice_url: null,
    })
    expect(polarOrderPayment(parseOrder(order({ product: null })), null)).toEqual({
      ...payment,
      user_id: null,
      description: 'Subscription payment',
      invoice_url: null,
    })
  })

  it('an order without a subscription (one-off purchase) has no subscription id', () => {
    const value = parseOrder({
      id: ORDER_ID,
      created_at: '2026-11-01T10:00:02Z',
      total_amount: 1500,
      currency: 'usd',
    })
    expect(polarOrderPayment(value, USER_ID)).toEqual({
      ...payment,
      polar_subscription_id: null,
      amount: 1500,
      description: 'Subscription payment',
      invoice_url: null,
      created_at: '2026-11-01T10:00:02Z',
    })
  })
})

describe('polarRefundPayment (order.refunded)', () => {
  const refund = {
    user_id: USER_ID,
    provider: 'polar',
    polar_subscription_id: SUBSCRIPTION_ID,
    provider_payment_id: ORDER_ID,
    amount: -1000,
    currency: 'usd',
    status: 'refunded',
    description: 'Pro refund',
    invoice_url: null,
    created_at: '2026-11-25T09:00:00.000Z',
  }

  it('a partial refund: minus the refunded amount, at the event time', () => {
    const value = order({ status: 'partially_refunded', refunded_amount: 1000 })
    expect(polarRefundPayment(parseOrder(value), USER_ID, '2026-11-25T09:00:00.000Z')).toEqual(
      refund,
    )
  })

  it('a full refund: what went back to the card, tax included', () => {
    const value = order({ status: 'refunded', refunded_amount: 2900, refunded_tax_amount: 290 })
    expect(polarRefundPayment(parseOrder(value), USER_ID, '2026-11-25T09:00:00.000Z')).toEqual({
      ...refund,
      amount: -3190,
    })
  })

  it.each([[0], [null], [undefined]])(
    'falls back to minus the total when refunded_amount is %j',
    (refunded) => {
      const value: Record<string, unknown> = order({
        status: 'refunded',
        refunded_amount: refunded,
      })
      if (refunded === undefined) delete value.refunded_amount
      expect(polarRefundPayment(parseOrder(value), null, '2026-11-25T09:00:00.000Z')).toEqual({
        ...refund,
        user_id: null,
        amount: -3190,
      })
    },
  )

  it('without a product name', () => {
    const value = order({ refunded_amount: 1000, product: product({ name: null }) })
    expect(polarRefundPayment(parseOrder(value), USER_ID, '2026-11-25T09:00:00.000Z')).toEqual({
      ...refund,
      description: 'Subscription refund',
    })
  })
})

describe('applyPolarEvent: which store call each event type makes', () => {
  const event = (type: string): LedgerEvent => ({
    provider: 'polar',
    id: `msg_${type}`,
    type,
    occurredAt: '2026-11-01T10:00:03.123Z',
  })

  beforeEach(() => {
    vi.clearAllMocks()
  })

  it.each([
    ['subscription.created', createdFields],
    ['subscription.updated', { ...createdFields, cancel_at: null, canceled_at: null }],
    ['subscription.active', { ...createdFields, status: 'active' }],
    ['subscription.canceled', createdFields],
    [
      'subscription.uncanceled',
      {
        ...createdFields,
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        status: 'active',
      },
    ],
    [
      'subscription.revoked',
      {
        ...createdFields,
        status: 'canceled',
        cancel_at_period_end: false,
        canceled_at: '2026-11-20T08:30:00Z',
      },
    ],
  ])('%s → applySubscriptionEvent with the user and mapped fields', async (type, fields) => {
    const data = subscription({
      canceled_at: type === 'subscription.revoked' ? '2026-11-20T08:30:00Z' : null,
    })
    await expect(applyPolarEvent(event(type), data)).resolves.toBe('applied')
    expect(store.applySubscriptionEvent).toHaveBeenCalledWith(event(type), USER_ID, fields)
    expect(store.recordEvent).not.toHaveBeenCalled()
  })

  it('a subscription event without a user id still goes to the store, with user null', async () => {
    const data = subscription({ metadata: {}, customer: customer() })
    await applyPolarEvent(event('subscription.created'), data)
    expect(store.applySubscriptionEvent).toHaveBeenCalledWith(
      event('subscription.created'),
      null,
      createdFields,
    )
  })

  it('an unhandled subscription type is only recorded', async () => {
    await expect(applyPolarEvent(event('subscription.past_due'), subscription())).resolves.toBe(
      'unhandled',
    )
    expect(store.recordEvent).toHaveBeenCalledWith(event('subscription.past_due'))
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
  })

  it('order.created of a paid order is only recorded (logged); of a renewal being charged, a pending payment', async () => {
    await expect(applyPolarEvent(event('order.created'), order())).resolves.toBe('logged')
    expect(store.recordEvent).toHaveBeenCalledWith(event('order.created'))
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
    const renewal = order({ status: 'pending', paid: false, billing_reason: 'subscription_cycle' })
    await expect(applyPolarEvent(event('order.created'), renewal)).resolves.toBe('applied')
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(event('order.created'), {
      ...ORDER_PAYMENT,
      status: 'pending',
    })
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

  it('order.paid → one recordPaymentEvent that finds the user itself, then the invoice URL', async () => {
    const update = databaseUpdates()
    await expect(applyPolarEvent(event('order.paid'), order())).resolves.toBe('applied')
    // No lookup of its own: the ledger call finds the subscription's user (its own test:
    // tests/db/webhook-apply.test.ts); the user the order names goes along as the fallback.
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(event('order.paid'), ORDER_PAYMENT)
    expect(fetchOrderInvoiceUrl).toHaveBeenCalledWith(ORDER_ID, {
      generate: true,
      timeoutSeconds: expect.any(Number),
    })
    expect(update).toHaveBeenCalledWith({ invoice_url: 'https://polar.example/invoices/inv_1.pdf' })
  })

  it('order.paid whose invoice Polar cannot give records the payment without a URL', async () => {
    const update = databaseUpdates()
    vi.mocked(fetchOrderInvoiceUrl).mockRejectedValueOnce(new Error('Polar answered 404'))
    await expect(applyPolarEvent(event('order.paid'), order())).resolves.toBe('applied')
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(event('order.paid'), ORDER_PAYMENT)
    expect(update).not.toHaveBeenCalled()
  })

  it.each(['no_user', 'duplicate', 'exists'] as const)(
    'order.paid the ledger answers %s for asks Polar for nothing',
    async (answer) => {
      vi.mocked(store.recordPaymentEvent).mockResolvedValueOnce(answer)
      const data = order({ metadata: {}, customer: customer(), subscription_id: null })
      await expect(applyPolarEvent(event('order.paid'), data)).resolves.toBe(answer)
      expect(fetchOrderInvoiceUrl).not.toHaveBeenCalled()
    },
  )

  it('order.paid of a subscription naming no user goes to the ledger with user null', async () => {
    databaseUpdates()
    const data = order({ metadata: {}, customer: customer() })
    await applyPolarEvent(event('order.paid'), data)
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(
      event('order.paid'),
      expect.objectContaining({ user_id: null, polar_subscription_id: SUBSCRIPTION_ID }),
    )
  })

  it('order.refunded → recordPaymentEvent with the negative row at the event time', async () => {
    const data = order({ status: 'refunded', refunded_amount: 2900 })
    await expect(applyPolarEvent(event('order.refunded'), data)).resolves.toBe('applied')
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(event('order.refunded'), {
      user_id: USER_ID,
      provider: 'polar',
      polar_subscription_id: SUBSCRIPTION_ID,
      provider_payment_id: ORDER_ID,
      amount: -2900,
      currency: 'usd',
      status: 'refunded',
      description: 'Pro refund',
      invoice_url: null,
      created_at: '2026-11-01T10:00:03.123Z',
    })
  })

  it('order.updated before the invoice is generated is only recorded', async () => {
    await expect(applyPolarEvent(event('order.updated'), order())).resolves.toBe('logged')
    expect(store.recordEvent).toHaveBeenCalledWith(event('order.updated'))
    expect(fetchOrderInvoiceUrl).not.toHaveBeenCalled()
  })

  it('another type is only recorded', async () => {
    await expect(applyPolarEvent(event('checkout.updated'), { id: 'x' })).resolves.toBe('unhandled')
    expect(store.recordEvent).toHaveBeenCalledWith(event('checkout.updated'))
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
  })

  it('a payload of the wrong shape is rejected before any store call', async () => {
    await expect(applyPolarEvent(event('subscription.created'), { id: 'x' })).rejects.toThrow()
    await expect(applyPolarEvent(event('order.paid'), { id: 'x' })).rejects.toThrow()
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
    expect(store.recordEvent).not.toHaveBeenCalled()
  })
})
