import Stripe from 'stripe'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { getPlans } from '~/billing/plans.server'
import { applyStripeEvent } from '~/billing/stripe/webhook.server'
import * as store from '~/subscriptions/store.server'

import { getStripe } from './client.server'
import {
  invoiceLinePriceId,
  invoicePayment,
  invoiceSubscriptionId,
  paidPaymentIntent,
  StripeInvoicePaymentsSchema,
  StripeInvoiceSchema,
  StripeSubscriptionSchema,
  subscriptionFields,
  subscriptionUserId,
} from './events'

// Only for the dispatch tests at the end (applyStripeEvent); the mapping itself is pure.
vi.mock('~/subscriptions/store.server', async () =>
  (await import('~/subscriptions/store.test-support')).mockedLedgerStore(),
)
vi.mock('./client.server', () => ({ getStripe: vi.fn() }))
vi.mock('~/lib/server/logger.server', () => ({
  logger: { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() },
}))

/** Unix seconds of an ISO time, so expectations read as dates. */
const unix = (iso: string) => Date.parse(iso) / 1000

const USER_ID = '5b0d3f4e-7c1a-4c4e-9f0a-00000000c0de'
const SUB_ID = 'sub_1SxQ2aL4kX9mNpQrStUvWx01'
const CUSTOMER_ID = 'cus_TqB3xYzA1b2C3d'
const PRICE_ID = 'price_1SxQ1hL4kX9mNpQrAbCdEf12'

/** A subscription as Stripe sends it at 2026-10-28.endive (periods on the item). */
function stripeSubscription(overrides: Record<string, unknown> = {}) {
  return {
    id: SUB_ID,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: true, liability: { type: 'self' } },
    billing_cycle_anchor: unix('2026-11-01T10:00:00.000Z'),
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: { proration_discounts: 'included' }, type: 'flexible' },
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    collection_method: 'charge_automatically',
    created: unix('2026-11-01T10:00:00.000Z'),
    currency: 'usd',
    customer: CUSTOMER_ID,
    customer_account: null,
    days_until_due: null,
    default_payment_method: 'pm_1SxQ2ZL4kX9mNpQrPmPmPm00',
    description: null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: {
      object: 'list',
      data: [
        {
          id: 'si_TqB3aaaaBBBBcc',
          object: 'subscription_item',
          created: unix('2026-11-01T10:00:00.000Z'),
          current_period_start: unix('2026-11-01T10:00:00.000Z'),
          current_period_end: unix('2026-12-01T10:00:00.000Z'),
          discounts: [],
          metadata: {},
          price: {
            id: PRICE_ID,
            object: 'price',
            active: true,
            currency: 'usd',
            nickname: null,
            product: 'prod_TqB2ProProPro',
            recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
            type: 'recurring',
            unit_amount: 2900,
          },
          quantity: 1,
          subscription: SUB_ID,
          tax_rates: [],
        },
      ],
      has_more: false,
      total_count: 1,
      url: `/v1/subscription_items?subscription=${SUB_ID}`,
    },
    latest_invoice: 'in_1SxQ2bL4kX9mNpQrInInIn01',
    livemode: false,
    metadata: { user_id: USER_ID, user_email: 'buyer@example.com' },
    pause_collection: null,
    pending_update: null,
    schedule: null,
    start_date: unix('2026-11-01T10:00:00.000Z'),
    status: 'active',
    test_clock: null,
    trial_end: null,
    trial_start: null,
    ...overrides,
  }
}

/** An invoice as Stripe sends it at 2026-10-28.endive (subscription under `parent`). */
function stripeInvoice(overrides: Record<string, unknown> = {}) {
  return {
    id: 'in_1SxQ2bL4kX9mNpQrInInIn01',
    object: 'invoice',
    account_country: 'US',
    amount_due: 2900,
    amount_overpaid: 0,
    amount_paid: 2900,
    amount_remaining: 0,
    attempt_count: 1,
    attempted: true,
    billing_reason: 'subscription_create',
    collection_method: 'charge_automatically',
    created: unix('2026-11-01T10:00:02.000Z'),
    currency: 'usd',
    customer: CUSTOMER_ID,
    customer_email: 'buyer@example.com',
    hosted_invoice_url: 'https://invoice.stripe.com/i/acct_1Sx/test_YWNjdF8x',
    invoice_pdf: 'https://pay.stripe.com/invoice/acct_1Sx/test_YWNjdF8x/pdf',
    lines: {
      object: 'list',
      data: [
        {
          id: 'il_1SxQ2bL4kX9mNpQrLnLn0001',
          object: 'line_item',
          amount: 2900,
          currency: 'usd',
          description: '1 × Pro (at $29.00 / month)',
          invoice: 'in_1SxQ2bL4kX9mNpQrInInIn01',
          metadata: { user_id: USER_ID },
          parent: {
            invoice_item_details: null,
            subscription_item_details: {
              invoice_item: null,
              proration: false,
              proration_details: { credited_items: null },
              subscription: SUB_ID,
              subscription_item: 'si_TqB3aaaaBBBBcc',
            },
            type: 'subscription_item_details',
          },
          period: {
            start: unix('2026-11-01T10:00:00.000Z'),
            end: unix('2026-12-01T10:00:00.000Z'),
          },
          pricing: {
            price_details: { price: PRICE_ID, product: 'prod_TqB2ProProPro' },
            type: 'price_details',
            unit_amount_decimal: '2900',
          },
          quantity: 1,
        },
      ],
      has_more: false,
      total_count: 1,
      url: '/v1/invoices/in_1SxQ2bL4kX9mNpQrInInIn01/lines',
    },
    livemode: false,
    metadata: {},
    number: 'A1B2C3D4-0001',
    parent: {
      quote_details: null,
      subscription_details: {
        metadata: { user_id: USER_ID, user_email: 'buyer@example.com' },
        subscription: SUB_ID,
      },
      type: 'subscription_details',
    },
    period_end: unix('2026-11-01T10:00:00.000Z'),
    period_start: unix('2026-11-01T10:00:00.000Z'),
    status: 'paid',
    status_transitions: {
      finalized_at: unix('2026-11-01T10:00:01.000Z'),
      paid_at: unix('2026-11-01T10:00:02.000Z'),
    },
    subtotal: 2900,
    total: 2900,
    ...overrides,
  }
}

const parseSubscription = (value: unknown) => StripeSubscriptionSchema.parse(value)
const parseInvoice = (value: unknown) => StripeInvoiceSchema.parse(value)

/** What every subscription event of the default fixture sets, before per-event changes. */
const baseFields = {
  provider: 'stripe',
  stripe_customer_id: CUSTOMER_ID,
  stripe_subscription_id: SUB_ID,
  plan_name: 'Pro',
  status: 'active',
  billing_cycle: 'month',
  current_period_start: '2026-11-01T10:00:00.000Z',
  current_period_end: '2026-12-01T10:00:00.000Z',
  cancel_at_period_end: false,
  cancel_at: null,
  canceled_at: null,
  trial_start: null,
  trial_end: null,
  cancellation_reason: null,
  cancellation_feedback: null,
  cancellation_comment: null,
  metadata: { user_id: USER_ID, user_email: 'buyer@example.com' },
}

describe('StripeSubscriptionSchema', () => {
  it('accepts a full endive subscription and keeps unknown fields', () => {
    const parsed = parseSubscription(stripeSubscription({ brand_new_field: { x: 1 } }))
    expect(parsed.id).toBe(SUB_ID)
    expect(parsed).toHaveProperty('brand_new_field', { x: 1 })
    expect(parsed.items.data[0]).toHaveProperty('id', 'si_TqB3aaaaBBBBcc')
  })

  it('accepts a payload that leaves out every optional field', () => {
    expect(() =>
      parseSubscription({
        id: SUB_ID,
        object: 'subscription',
        customer: CUSTOMER_ID,
        status: 'incomplete',
        items: { data: [] },
      }),
    ).not.toThrow()
  })

  it.each([['id'], ['object'], ['customer'], ['status'], ['items']])(
    'rejects a payload without %s',
    (field) => {
      const payload: Record<string, unknown> = stripeSubscription()
      delete payload[field]
      expect(StripeSubscriptionSchema.safeParse(payload).success).toBe(false)
    },
  )

  it('rejects an item without its price id, and an object that is not a subscription', () => {
    const item = { ...stripeSubscription().items.data[0], price: { object: 'price' } }
    const withoutPriceId = stripeSubscription({ items: { object: 'list', data: [item] } })
    expect(StripeSubscriptionSchema.safeParse(withoutPriceId).success).toBe(false)
    expect(
      StripeSubscriptionSchema.safeParse({ ...stripeSubscription(), object: 'invoice' }).success,
    ).toBe(false)
  })
})

describe('subscriptionUserId', () => {
  it('reads user_id from the metadata set at checkout, lower-cased', () => {
    const subscription = parseSubscription(
      stripeSubscription({ metadata: { user_id: USER_ID.toUpperCase() } }),
    )
    expect(subscriptionUserId(subscription)).toBe(USER_ID)
  })

  it.each([
    ['a non-UUID user id', { user_id: 'user_123' }],
    ['no user id', { user_email: 'buyer@example.com' }],
    ['empty metadata', {}],
    ['null metadata', null],
  ])('is null for %s', (_, metadata) => {
    expect(subscriptionUserId(parseSubscription(stripeSubscription({ metadata })))).toBeNull()
  })

  it('is null when metadata is left out', () => {
    const payload: Record<string, unknown> = stripeSubscription()
    delete payload.metadata
    expect(subscriptionUserId(parseSubscription(payload))).toBeNull()
  })
})

describe('subscriptionFields', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('customer.subscription.created: plan, billing cycle, periods from the item, metadata', () => {
    expect(subscriptionFields(parseSubscription(stripeSubscription()), 'Pro')).toEqual(baseFields)
  })

  it('customer.subscription.created in a trial: trial dates and status', () => {
    const subscription = stripeSubscription({
      status: 'trialing',
      trial_start: unix('2026-11-01T10:00:00.000Z'),
      trial_end: unix('2026-11-15T10:00:00.000Z'),
    })
    expect(subscriptionFields(parseSubscription(subscription), 'Starter')).toEqual({
      ...baseFields,
      plan_name: 'Starter',
      status: 'trialing',
      trial_start: '2026-11-01T10:00:00.000Z',
      trial_end: '2026-11-15T10:00:00.000Z',
    })
  })

  it('reads a yearly interval as the billing cycle', () => {
    const base = stripeSubscription()
    const item = base.items.data[0]
    const yearly = {
      ...item,
      current_period_end: unix('2027-11-01T10:00:00.000Z'),
      price: { ...item.price, recurring: { interval: 'year', interval_count: 1 } },
    }
    const subscription = { ...base, items: { ...base.items, data: [yearly] } }
    expect(subscriptionFields(parseSubscription(subscription), 'Pro')).toEqual({
      ...baseFields,
      billing_cycle: 'year',
      current_period_end: '2027-11-01T10:00:00.000Z',
    })
  })

  it('customer.subscription.updated: cancel at period end with the reason, feedback and comment', () => {
    const subscription = stripeSubscription({
      cancel_at_period_end: true,
      cancel_at: unix('2026-12-01T10:00:00.000Z'),
      canceled_at: unix('2026-11-20T08:30:00.000Z'),
      cancellation_details: {
        comment: 'Too pricey for now',
        feedback: 'too_expensive',
        reason: 'cancellation_requested',
      },
    })
    expect(subscriptionFields(parseSubscription(subscription), 'Pro')).toEqual({
      ...baseFields,
      cancel_at_period_end: true,
      cancel_at: '2026-12-01T10:00:00.000Z',
      canceled_at: '2026-11-20T08:30:00.000Z',
      cancellation_reason: 'cancellation_requested',
      cancellation_feedback: 'too_expensive',
      cancellation_comment: 'Too pricey for now',
    })
  })

  it('customer.subscription.updated: resumed (cancellation cleared), renewed periods, past_due', () => {
    const base = stripeSubscription()
    const renewed = {
      ...base.items.data[0],
      current_period_start: unix('2026-12-01T10:00:00.000Z'),
      current_period_end: unix('2027-01-01T10:00:00.000Z'),
    }
    const subscription = {
      ...base,
      status: 'past_due',
      items: { ...base.items, data: [renewed] },
    }
    expect(subscriptionFields(parseSubscription(subscription), 'Pro')).toEqual({
      ...baseFields,
      status: 'past_due',
      current_period_start: '2026-12-01T10:00:00.000Z',
      current_period_end: '2027-01-01T10:00:00.000Z',
    })
  })

  it('customer.subscription.deleted: canceled with the canceled_at Stripe sent', () => {
    const subscription = stripeSubscription({
      status: 'canceled',
      canceled_at: unix('2026-11-20T08:30:00.000Z'),
      ended_at: unix('2026-11-20T08:30:00.000Z'),
      cancellation_details: { comment: null, feedback: null, reason: 'payment_failed' },
    })
    expect(subscriptionFields(parseSubscription(subscription), 'Pro', { deleted: true })).toEqual({
      ...baseFields,
      status: 'canceled',
      canceled_at: '2026-11-20T08:30:00.000Z',
      cancellation_reason: 'payment_failed',
    })
  })

  it('customer.subscription.deleted: canceled whatever status the payload carries, canceled_at now when absent', () => {
    vi.useFakeTimers()
    vi.setSystemTime(new Date('2026-11-21T12:00:00.000Z'))
    const subscription = stripeSubscription({ status: 'incomplete_expired', canceled_at: null })
    expect(subscriptionFields(parseSubscription(subscription), 'Pro', { deleted: true })).toEqual({
      ...baseFields,
      status: 'canceled',
      canceled_at: '2026-11-21T12:00:00.000Z',
    })
  })

  it('a not-deleted subscription with status canceled keeps canceled_at null when Stripe sent none', () => {
    const subscription = stripeSubscription({ status: 'canceled' })
    expect(subscriptionFields(parseSubscription(subscription), 'Pro')).toEqual({
      ...baseFields,
      status: 'canceled',
    })
  })

  it('takes the customer id from an expanded customer object', () => {
    const subscription = stripeSubscription({
      customer: { id: CUSTOMER_ID, object: 'customer', email: 'buyer@example.com' },
    })
    expect(subscriptionFields(parseSubscription(subscription), 'Pro')).toEqual(baseFields)
  })

  it('maps missing optional fields to null, false and {}', () => {
    const subscription = parseSubscription({
      id: SUB_ID,
      object: 'subscription',
      customer: CUSTOMER_ID,
      status: 'incomplete',
      items: { object: 'list', data: [{ price: { id: PRICE_ID } }] },
    })
    expect(subscriptionFields(subscription, 'Unknown Plan')).toEqual({
      ...baseFields,
      plan_name: 'Unknown Plan',
      status: 'incomplete',
      billing_cycle: null,
      current_period_start: null,
      current_period_end: null,
      metadata: {},
    })
  })

  it('maps explicit nulls the same way (null metadata, flags and cancellation details)', () => {
    const subscription = stripeSubscription({
      cancel_at_period_end: null,
      cancellation_details: null,
      metadata: null,
    })
    expect(subscriptionFields(parseSubscription(subscription), 'Pro')).toEqual({
      ...baseFields,
      metadata: {},
    })
  })

  it('maps a subscription with no items to null cycle and periods', () => {
    const subscription = stripeSubscription({ items: { object: 'list', data: [] } })
    expect(subscriptionFields(parseSubscription(subscription), 'Pro')).toEqual({
      ...baseFields,
      billing_cycle: null,
      current_period_start: null,
      current_period_end: null,
    })
  })
})

describe('StripeInvoiceSchema', () => {
  it('accepts a full endive invoice and keeps unknown fields', () => {
    const parsed = parseInvoice(stripeInvoice({ brand_new_field: true }))
    expect(parsed).toHaveProperty('brand_new_field', true)
    expect(parsed).toHaveProperty('number', 'A1B2C3D4-0001')
  })

  it('accepts an invoice with only the required fields', () => {
    expect(() =>
      parseInvoice({
        id: 'in_1',
        object: 'invoice',
        amount_paid: 0,
        currency: 'usd',
        created: unix('2026-11-01T10:00:02.000Z'),
      }),
    ).not.toThrow()
  })

  it.each([['id'], ['object'], ['amount_paid'], ['currency'], ['created']])(
    'rejects an invoice without %s',
    (field) => {
      const payload: Record<string, unknown> = stripeInvoice()
      delete payload[field]
      expect(StripeInvoiceSchema.safeParse(payload).success).toBe(false)
    },
  )

  it('rejects a non-integer amount', () => {
    expect(StripeInvoiceSchema.safeParse(stripeInvoice({ amount_paid: 29.5 })).success).toBe(false)
  })
})

describe('invoiceSubscriptionId', () => {
  it('reads the subscription from parent.subscription_details', () => {
    expect(invoiceSubscriptionId(parseInvoice(stripeInvoice()))).toBe(SUB_ID)
  })

  it('reads an expanded subscription object under parent', () => {
    const invoice = stripeInvoice({
      parent: {
        quote_details: null,
        subscription_details: {
          metadata: {},
          subscription: { id: 'sub_expanded', object: 'subscription' },
        },
        type: 'subscription_details',
      },
    })
    expect(invoiceSubscriptionId(parseInvoice(invoice))).toBe('sub_expanded')
  })

  it('falls back to the line items when parent names no subscription', () => {
    expect(invoiceSubscriptionId(parseInvoice(stripeInvoice({ parent: null })))).toBe(SUB_ID)
    const quoteParent = {
      quote_details: { quote: 'qt_1' },
      subscription_details: null,
      type: 'quote_details',
    }
    expect(invoiceSubscriptionId(parseInvoice(stripeInvoice({ parent: quoteParent })))).toBe(SUB_ID)
  })

  it('skips line items without a subscription', () => {
    const base = stripeInvoice()
    const oneOff = {
      ...base.lines.data[0],
      id: 'il_oneoff',
      parent: {
        invoice_item_details: { invoice_item: 'ii_1', subscription: null },
        subscription_item_details: null,
        type: 'invoice_item_details',
      },
    }
    const invoice = {
      ...base,
      parent: null,
      lines: { ...base.lines, data: [oneOff, base.lines.data[0]] },
    }
    expect(invoiceSubscriptionId(parseInvoice(invoice))).toBe(SUB_ID)
  })

  it('is null for an invoice without a subscription anywhere', () => {
    const base = stripeInvoice()
    const line = { ...base.lines.data[0], parent: null }
    expect(
      invoiceSubscriptionId(
        parseInvoice({ ...base, parent: null, lines: { ...base.lines, data: [line] } }),
      ),
    ).toBeNull()
    const bare: Record<string, unknown> = stripeInvoice({ parent: null })
    delete bare.lines
    expect(invoiceSubscriptionId(parseInvoice(bare))).toBeNull()
  })
})

describe('invoiceLinePriceId', () => {
  it('reads the price of the first line', () => {
    expect(invoiceLinePriceId(parseInvoice(stripeInvoice()))).toBe(PRICE_ID)
  })

  it('reads an expanded price object', () => {
    const base = stripeInvoice()
    const line = {
      ...base.lines.data[0],
      pricing: {
        price_details: { price: { id: PRICE_ID, object: 'price' }, product: 'prod_TqB2ProProPro' },
        type: 'price_details',
      },
    }
    expect(
      invoiceLinePriceId(parseInvoice({ ...base, lines: { ...base.lines, data: [line] } })),
    ).toBe(PRICE_ID)
  })

  it('is null without lines or pricing', () => {
    const base = stripeInvoice()
    expect(invoiceLinePriceId(parseInvoice({ ...base, lines: { ...base.lines, data: [] } }))).toBe(
      null,
    )
    const line = { ...base.lines.data[0], pricing: null }
    expect(
      invoiceLinePriceId(parseInvoice({ ...base, lines: { ...base.lines, data: [line] } })),
    ).toBeNull()
  })
})

describe('invoicePayment (invoice.payment_succeeded)', () => {
  const basePayment = {
    user_id: USER_ID,
    provider: 'stripe',
    provider_payment_id: 'in_1SxQ2bL4kX9mNpQrInInIn01',
    provider_charge_id: null,
    amount: 2900,
    currency: 'usd',
    status: 'paid',
    description: 'Pro payment',
    invoice_url: 'https://invoice.stripe.com/i/acct_1Sx/test_YWNjdF8x',
    created_at: '2026-11-01T10:00:02.000Z',
  }

  it('maps a paid invoice and the payment intent found for it to a payment row', () => {
    expect(invoicePayment(parseInvoice(stripeInvoice()), USER_ID, 'Pro', null)).toEqual(basePayment)
    expect(
      invoicePayment(parseInvoice(stripeInvoice()), USER_ID, 'Pro', 'pi_3SxQ2cL4kX9mNpQr0abc'),
    ).toEqual({ ...basePayment, provider_charge_id: 'pi_3SxQ2cL4kX9mNpQr0abc' })
  })

  it('does not read a payments list from the invoice (the API never sends one in events)', () => {
    const invoice = stripeInvoice({
      payments: { data: [{ payment: { payment_intent: 'pi_x', type: 'payment_intent' } }] },
    })
    expect(invoicePayment(parseInvoice(invoice), USER_ID, 'Pro', null)).toEqual(basePayment)
  })

  it('lower-cases the currency and keeps the amount in cents', () => {
    const invoice = stripeInvoice({ currency: 'EUR', amount_paid: 123456 })
    expect(invoicePayment(parseInvoice(invoice), USER_ID, 'Pro', null)).toEqual({
      ...basePayment,
      currency: 'eur',
      amount: 123456,
    })
  })

  it('without a plan name or user, and with the optional fields missing', () => {
    const invoice = parseInvoice({
      id: 'in_bare',
      object: 'invoice',
      amount_paid: 900,
      currency: 'usd',
      created: unix('2026-11-02T00:00:00.000Z'),
    })
    expect(invoicePayment(invoice, null, null, null)).toEqual({
      ...basePayment,
      user_id: null,
      provider_payment_id: 'in_bare',
      amount: 900,
      status: 'paid',
      description: 'Subscription payment',
      invoice_url: null,
      created_at: '2026-11-02T00:00:00.000Z',
    })
  })

  it('keeps the status Stripe sent', () => {
    const invoice = stripeInvoice({ status: 'open', hosted_invoice_url: null })
    expect(invoicePayment(parseInvoice(invoice), USER_ID, 'Starter', null)).toEqual({
      ...basePayment,
      status: 'open',
      description: 'Starter payment',
      invoice_url: null,
    })
  })
})

describe('paidPaymentIntent (GET /v1/invoice_payments)', () => {
  const payments = (data: unknown[]) =>
    StripeInvoicePaymentsSchema.parse({ object: 'list', data, has_more: false })
  const paid = (intent: unknown) => ({
    id: 'inpay_1',
    object: 'invoice_payment',
    status: 'paid',
    payment: { payment_intent: intent, type: 'payment_intent' },
  })

  it('reads the intent of the paid payment, plain or expanded, and its card when expanded', () => {
    expect(paidPaymentIntent(payments([paid('pi_3SxQ2cL4kX9mNpQr0abc')]))).toEqual({
      id: 'pi_3SxQ2cL4kX9mNpQr0abc',
      card: null,
    })
    const method = { id: 'pm_1', card: { brand: 'visa', last4: '4242', exp_year: 2029 } }
    const expanded = { id: 'pi_expanded', object: 'payment_intent', payment_method: method }
    expect(paidPaymentIntent(payments([paid(expanded)]))).toEqual({
      id: 'pi_expanded',
      card: { brand: 'visa', last4: '4242' },
    })
    const unexpanded = { ...expanded, payment_method: 'pm_1' }
    expect(paidPaymentIntent(payments([paid(unexpanded)]))?.card).toBeNull()
  })

  it('skips open payments and payments without an intent', () => {
    const open = { ...paid('pi_open'), status: 'open' }
    const record = {
      id: 'inpay_r',
      status: 'paid',
      payment: { type: 'payment_record', payment_record: 'pr_1' },
    }
    expect(paidPaymentIntent(payments([open, record]))).toBeNull()
    expect(paidPaymentIntent(payments([open, record, paid('pi_paid')]))?.id).toBe('pi_paid')
    expect(paidPaymentIntent(payments([]))).toBeNull()
  })
})

describe('applyStripeEvent: which store call each event type makes', () => {
  const created = unix('2026-11-01T10:00:03.000Z')
  const event = (type: string, object: unknown) =>
    ({
      id: `evt_${type}`,
      object: 'event',
      api_version: '2026-10-28.endive',
      created,
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    }) as unknown as Stripe.Event
  const ledger = (type: string) => ({
    provider: 'stripe',
    id: `evt_${type}`,
    type,
    occurredAt: '2026-11-01T10:00:03.000Z',
  })
  const proPriceId = () => getPlans().find((plan) => plan.key === 'pro')!.ids.stripe

  beforeEach(() => {
    vi.clearAllMocks()
  })

  it.each([
    ['customer.subscription.created', false],
    ['customer.subscription.updated', false],
    ['customer.subscription.deleted', true],
  ])('%s → applySubscriptionEvent with the mapped fields', async (type, deleted) => {
    const base = stripeSubscription({ canceled_at: unix('2026-11-20T08:30:00.000Z') })
    const item = { ...base.items.data[0], price: { ...base.items.data[0].price, id: proPriceId() } }
    const subscription = { ...base, items: { ...base.items, data: [item] } }
    await expect(applyStripeEvent(event(type, subscription))).resolves.toBe('applied')
    expect(store.applySubscriptionEvent).toHaveBeenCalledTimes(1)
    expect(store.applySubscriptionEvent).toHaveBeenCalledWith(ledger(type), USER_ID, {
      ...baseFields,
      status: deleted ? 'canceled' : 'active',
      canceled_at: '2026-11-20T08:30:00.000Z',
    })
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
  })

  it('names an unknown price by its nickname, else Unknown Plan; no user id → the ledger call looks it up by subscription', async () => {
    const base = stripeSubscription({ metadata: {} })
    const nicknamed = {
      ...base.items.data[0],
      price: { ...base.items.data[0].price, id: 'price_other', nickname: 'Legacy' },
    }
    await applyStripeEvent(
      event('customer.subscription.updated', {
        ...base,
        items: { ...base.items, data: [nicknamed] },
      }),
    )
    expect(store.applySubscriptionEvent).toHaveBeenLastCalledWith(
      ledger('customer.subscription.updated'),
      null,
      { ...baseFields, plan_name: 'Legacy', metadata: {} },
    )
    const unnamed = { ...nicknamed, price: { ...nicknamed.price, nickname: null } }
    await applyStripeEvent(
      event('customer.subscription.updated', {
        ...base,
        items: { ...base.items, data: [unnamed] },
      }),
    )
    expect(store.applySubscriptionEvent).toHaveBeenLastCalledWith(
      ledger('customer.subscription.updated'),
      null,
      { ...baseFields, plan_name: 'Unknown Plan', metadata: {} },
    )
  })

  /** getStripe() answering GET /v1/invoice_payments with `list`. */
  function stripeWithPayments(list: () => Promise<unknown>) {
    const invoicePayments = { list: vi.fn(list) }
    vi.mocked(getStripe).mockReturnValue({ invoicePayments } as unknown as Stripe)
    return invoicePayments.list
  }
  const paidInvoice = () => {
    const base = stripeInvoice()
    const line = {
      ...base.lines.data[0],
      pricing: { price_details: { price: proPriceId() }, type: 'price_details' },
    }
    return { ...base, lines: { ...base.lines, data: [line] } }
  }
  const paymentRow = {
    user_id: USER_ID,
    provider: 'stripe',
    provider_payment_id: 'in_1SxQ2bL4kX9mNpQrInInIn01',
    provider_charge_id: 'pi_3SxQ2cL4kX9mNpQr0abc',
    amount: 2900,
    currency: 'usd',
    status: 'paid',
    description: 'Pro payment',
    invoice_url: 'https://invoice.stripe.com/i/acct_1Sx/test_YWNjdF8x',
    created_at: '2026-11-01T10:00:02.000Z',
    // Not a column: the ledger call finds the user by it when user_id is null.
    stripe_customer_id: CUSTOMER_ID,
  }

  it('invoice.payment_succeeded → recordPaymentEvent with the row, the invoice payment intent and its card', async () => {
    const card = { brand: 'visa', last4: '4242', exp_year: 2029, funding: 'credit' }
    const intent = { id: 'pi_3SxQ2cL4kX9mNpQr0abc', payment_method: { id: 'pm_1', card } }
    const list = stripeWithPayments(async () => ({
      object: 'list',
      data: [
        {
          id: 'inpay_1',
          status: 'paid',
          payment: { payment_intent: intent, type: 'payment_intent' },
        },
      ],
      has_more: false,
    }))
    await expect(applyStripeEvent(event('invoice.payment_succeeded', paidInvoice()))).resolves.toBe(
      'applied',
    )
    // One request: the card comes expanded with the payment intent.
    expect(list).toHaveBeenCalledWith(
      {
        invoice: 'in_1SxQ2bL4kX9mNpQrInInIn01',
        status: 'paid',
        expand: ['data.payment.payment_intent.payment_method'],
      },
      { timeout: expect.any(Number), maxNetworkRetries: 0 },
    )
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(ledger('invoice.payment_succeeded'), {
      ...paymentRow,
      card: { brand: 'visa', last4: '4242' },
    })
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
  })

  it('records no payment intent for an invoice Stripe does not know, or one with nothing paid', async () => {
    const missing = new Stripe.errors.StripeInvalidRequestError({
      type: 'invalid_request_error',
      code: 'resource_missing',
      message: "No such invoice: 'in_1SxQ2bL4kX9mNpQrInInIn01'",
    })
    const list = stripeWithPayments(async () => Promise.reject(missing))
    await applyStripeEvent(event('invoice.payment_succeeded', paidInvoice()))
    expect(store.recordPaymentEvent).toHaveBeenLastCalledWith(ledger('invoice.payment_succeeded'), {
      ...paymentRow,
      provider_charge_id: null,
    })
    list.mockClear()
    await applyStripeEvent(event('invoice.payment_succeeded', { ...paidInvoice(), amount_paid: 0 }))
    expect(list).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).toHaveBeenLastCalledWith(ledger('invoice.payment_succeeded'), {
      ...paymentRow,
      provider_charge_id: null,
      amount: 0,
    })
  })

  it('records the payment without its payment intent when the invoice payments cannot be read', async () => {
    stripeWithPayments(async () => Promise.reject(new Error('connect ECONNREFUSED')))
    await expect(applyStripeEvent(event('invoice.payment_succeeded', paidInvoice()))).resolves.toBe(
      'applied',
    )
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(ledger('invoice.payment_succeeded'), {
      ...paymentRow,
      provider_charge_id: null,
    })
  })

  it('invoice.payment_failed → the ledger row, the failed row in the billing history and the mail in one call', async () => {
    const invoice = stripeInvoice({
      status: 'open',
      amount_paid: 0,
      amount_due: 1900,
      attempt_count: 2,
      next_payment_attempt: unix('2026-12-04T11:00:00.000Z'),
      hosted_invoice_url: 'https://invoice.stripe.com/i/acct_1/test_1',
      customer_email: 'buyer@example.com',
    })
    await expect(applyStripeEvent(event('invoice.payment_failed', invoice))).resolves.toBe(
      'notified',
    )
    // When it failed (the event's time) and when Stripe retries (retry_at), for the past-due
    // notice, in the same call.
    expect(store.recordPaymentFailure).toHaveBeenCalledWith(
      ledger('invoice.payment_failed'),
      USER_ID,
      {
        invoice_id: invoice.id,
        attempt: 2,
        amount: 1900,
        currency: invoice.currency,
        invoice_url: 'https://invoice.stripe.com/i/acct_1/test_1',
        retry_at: '2026-12-04T11:00:00.000Z',
      },
      expect.objectContaining({
        user_id: USER_ID,
        provider: 'stripe',
        provider_payment_id: invoice.id,
        provider_charge_id: null,
        amount: 1900,
        status: 'failed',
        invoice_url: 'https://invoice.stripe.com/i/acct_1/test_1',
      }),
    )
    expect(store.recordEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
  })

  it('invoice.payment_failed without a customer email still finds the owner (the mail goes to the account)', async () => {
    const invoice = stripeInvoice({ status: 'open', amount_paid: 0, customer_email: null })
    await applyStripeEvent(event('invoice.payment_failed', invoice))
    // No retry planned (Stripe's next_payment_attempt is null): said as such.
    expect(store.recordPaymentFailure).toHaveBeenCalledWith(
      ledger('invoice.payment_failed'),
      USER_ID,
      expect.objectContaining({ invoice_id: invoice.id, retry_at: null }),
      expect.objectContaining({ status: 'failed' }),
    )
  })

  it('an unhandled type touches nothing', async () => {
    await expect(
      applyStripeEvent(event('customer.created', { id: CUSTOMER_ID, object: 'customer' })),
    ).resolves.toBe('unhandled')
    expect(store.recordEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
  })

  it('a payload of the wrong shape is rejected before any store call', async () => {
    await expect(
      applyStripeEvent(
        event('customer.subscription.updated', { id: SUB_ID, object: 'subscription' }),
      ),
    ).rejects.toThrow()
    await expect(
      applyStripeEvent(event('invoice.payment_succeeded', { id: 'in_1', object: 'invoice' })),
    ).rejects.toThrow()
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
  })
})
