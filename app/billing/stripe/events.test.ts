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
const INVOICE_ID = 'in_1SxQ2bL4kX9mNpQrInInIn01'
const INVOICE_URL = 'https://invoice.stripe.com/i/acct_1Sx/test_YWNjdF8x'

type Fields = Record<string, unknown>

/** The fields read of a subscription at 2026-10-28.endive (periods on the item), with overrides. */
function stripeSubscription(overrides: Fields = {}, { price, ...item }: Fields = {}) {
  return {
    id: SUB_ID,
    object: 'subscription',
    customer: CUSTOMER_ID,
    status: 'active',
    cancel_at_period_end: false,
    metadata: { user_id: USER_ID, user_email: 'buyer@example.com' },
    items: {
      data: [
        {
          current_period_start: unix('2026-11-01T10:00:00.000Z'),
          current_period_end: unix('2026-12-01T10:00:00.000Z'),
          price: {
            id: PRICE_ID,
            nickname: null,
            recurring: { interval: 'month' },
            ...(price ?? {}),
          },
          ...item,
        },
      ],
    },
    ...overrides,
  }
}

/** The fields read of an invoice at 2026-10-28.endive (subscription under `parent`), one line. */
function stripeInvoice(overrides: Fields = {}, line: Fields = {}) {
  return {
    id: INVOICE_ID,
    object: 'invoice',
    customer: CUSTOMER_ID,
    customer_email: 'buyer@example.com',
    amount_due: 2900,
    amount_paid: 2900,
    attempt_count: 1,
    currency: 'usd',
    created: unix('2026-11-01T10:00:02.000Z'),
    hosted_invoice_url: INVOICE_URL,
    status: 'paid',
    parent: { subscription_details: { metadata: { user_id: USER_ID }, subscription: SUB_ID } },
    lines: {
      data: [
        {
          parent: { subscription_item_details: { subscription: SUB_ID } },
          pricing: { price_details: { price: PRICE_ID } },
          ...line,
        },
      ],
    },
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

/** A payload of only the required fields. */
const bareSubscription = (items: unknown[]) => ({
  id: SUB_ID,
  object: 'subscription',
  customer: CUSTOMER_ID,
  status: 'incomplete',
  items: { data: items },
})

describe('StripeSubscriptionSchema', () => {
  it('keeps unknown fields, on the subscription and its items, and needs none of the optional ones', () => {
    const parsed = parseSubscription(
      stripeSubscription({ brand_new_field: { x: 1 } }, { id: 'si_1' }),
    )
    expect(parsed.id).toBe(SUB_ID)
    expect(parsed).toHaveProperty('brand_new_field', { x: 1 })
    expect(parsed.items.data[0]).toHaveProperty('id', 'si_1')
    expect(() => parseSubscription(bareSubscription([]))).not.toThrow()
  })

  it.each<Fields>([
    ...['id', 'object', 'customer', 'status', 'items'].map((field) => ({ [field]: undefined })),
    { object: 'invoice' },
    { items: { data: [{ price: { nickname: 'no id' } }] } },
  ])('rejects a subscription with %o', (overrides) => {
    expect(StripeSubscriptionSchema.safeParse(stripeSubscription(overrides)).success).toBe(false)
  })
})

// What counts as a user id: app/subscriptions/user-id.test.ts.
describe('subscriptionUserId', () => {
  it.each([
    [{ user_id: USER_ID.toUpperCase() }, USER_ID],
    [{ user_email: 'buyer@example.com' }, null],
    [null, null],
    [undefined, null],
  ])('reads the user_id of the metadata %j set at checkout', (metadata, userId) => {
    expect(subscriptionUserId(parseSubscription(stripeSubscription({ metadata })))).toBe(userId)
  })
})

describe('subscriptionFields', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it.each<[string, ReturnType<typeof stripeSubscription>, Fields, boolean?]>([
    ['created: plan, billing cycle, periods from the item, metadata', stripeSubscription(), {}],
    [
      'created in a trial: trial dates and status',
      stripeSubscription({
        status: 'trialing',
        trial_start: unix('2026-11-01T10:00:00.000Z'),
        trial_end: unix('2026-11-15T10:00:00.000Z'),
      }),
      {
        status: 'trialing',
        trial_start: '2026-11-01T10:00:00.000Z',
        trial_end: '2026-11-15T10:00:00.000Z',
      },
    ],
    [
      'a yearly interval as the billing cycle',
      stripeSubscription(
        {},
        {
          current_period_end: unix('2027-11-01T10:00:00.000Z'),
          price: { recurring: { interval: 'year', interval_count: 1 } },
        },
      ),
      { billing_cycle: 'year', current_period_end: '2027-11-01T10:00:00.000Z' },
    ],
    [
      'updated: cancel at period end with the reason, feedback and comment',
      stripeSubscription({
        cancel_at_period_end: true,
        cancel_at: unix('2026-12-01T10:00:00.000Z'),
        canceled_at: unix('2026-11-20T08:30:00.000Z'),
        cancellation_details: {
          comment: 'Too pricey for now',
          feedback: 'too_expensive',
          reason: 'cancellation_requested',
        },
      }),
      {
        cancel_at_period_end: true,
        cancel_at: '2026-12-01T10:00:00.000Z',
        canceled_at: '2026-11-20T08:30:00.000Z',
        cancellation_reason: 'cancellation_requested',
        cancellation_feedback: 'too_expensive',
        cancellation_comment: 'Too pricey for now',
      },
    ],
    [
      'updated: resumed (cancellation cleared), renewed periods, past_due',
      stripeSubscription(
        { status: 'past_due' },
        {
          current_period_start: unix('2026-12-01T10:00:00.000Z'),
          current_period_end: unix('2027-01-01T10:00:00.000Z'),
        },
      ),
      {
        status: 'past_due',
        current_period_start: '2026-12-01T10:00:00.000Z',
        current_period_end: '2027-01-01T10:00:00.000Z',
      },
    ],
    // Not deleted: canceled_at stays null when Stripe sent none.
    ['a status canceled', stripeSubscription({ status: 'canceled' }), { status: 'canceled' }],
    ['an expanded customer', stripeSubscription({ customer: { id: CUSTOMER_ID } }), {}],
    [
      'explicit nulls (metadata, flags and cancellation details) as null, false and {}',
      stripeSubscription({
        cancel_at_period_end: null,
        cancellation_details: null,
        metadata: null,
        canceled_at: null,
        trial_start: null,
      }),
      { metadata: {} },
    ],
    [
      'no items as a null cycle and periods',
      stripeSubscription({ items: { object: 'list', data: [] } }),
      { billing_cycle: null, current_period_start: null, current_period_end: null },
    ],
    [
      'missing optional fields as null, false and {}',
      bareSubscription([{ price: { id: PRICE_ID } }]) as ReturnType<typeof stripeSubscription>,
      {
        status: 'incomplete',
        billing_cycle: null,
        current_period_start: null,
        current_period_end: null,
        metadata: {},
      },
    ],
    [
      'deleted: canceled with the canceled_at Stripe sent',
      stripeSubscription({
        status: 'canceled',
        canceled_at: unix('2026-11-20T08:30:00.000Z'),
        cancellation_details: { reason: 'payment_failed' },
      }),
      {
        status: 'canceled',
        canceled_at: '2026-11-20T08:30:00.000Z',
        cancellation_reason: 'payment_failed',
      },
      true,
    ],
    [
      'deleted: canceled whatever status the payload carries, canceled_at now when absent',
      stripeSubscription({ status: 'incomplete_expired' }),
      { status: 'canceled', canceled_at: '2026-11-21T12:00:00.000Z' },
      true,
    ],
  ])('maps %s', (_, subscription, changes, deleted) => {
    vi.useFakeTimers()
    vi.setSystemTime(new Date('2026-11-21T12:00:00.000Z'))
    expect(subscriptionFields(parseSubscription(subscription), 'Pro', { deleted })).toEqual({
      ...baseFields,
      ...changes,
    })
  })
})

describe('StripeInvoiceSchema', () => {
  it('keeps unknown fields and needs none of the optional ones', () => {
    expect(parseInvoice(stripeInvoice({ brand_new_field: true }))).toHaveProperty(
      'brand_new_field',
      true,
    )
    const required = { id: 'in_1', object: 'invoice', amount_paid: 0, currency: 'usd', created: 1 }
    expect(() => parseInvoice(required)).not.toThrow()
  })

  it.each<Fields>([
    ...['id', 'object', 'amount_paid', 'currency', 'created'].map((field) => ({
      [field]: undefined,
    })),
    { amount_paid: 29.5 },
  ])('rejects an invoice with %o', (overrides) => {
    expect(StripeInvoiceSchema.safeParse(stripeInvoice(overrides)).success).toBe(false)
  })
})

describe('invoiceSubscriptionId', () => {
  const oneOffLine = { parent: { invoice_item_details: {}, subscription_item_details: null } }
  /** An invoice without a parent, its lines the default line with each of `lines`. */
  const linesOnly = (...lines: Fields[]) => {
    const data = lines.map((line) => ({ ...stripeInvoice().lines.data[0], ...line }))
    return stripeInvoice({ parent: null, lines: { data } })
  }

  it.each<[string, unknown, string | null]>([
    ['from parent.subscription_details', stripeInvoice(), SUB_ID],
    [
      'from an expanded subscription object under parent',
      stripeInvoice({
        parent: {
          subscription_details: { subscription: { id: 'sub_expanded', object: 'subscription' } },
        },
      }),
      'sub_expanded',
    ],
    ['from the line items when parent is null', stripeInvoice({ parent: null }), SUB_ID],
    [
      'from the line items when parent is a quote',
      stripeInvoice({
        parent: { quote_details: { quote: 'qt_1' }, subscription_details: null },
      }),
      SUB_ID,
    ],
    ['skipping line items without a subscription', linesOnly(oneOffLine, {}), SUB_ID],
    ['null without a subscription anywhere', linesOnly({ parent: null }), null],
    ['null without a parent or lines', stripeInvoice({ parent: null, lines: undefined }), null],
  ])('reads the subscription %s', (_, invoice, expected) => {
    expect(invoiceSubscriptionId(parseInvoice(invoice))).toBe(expected)
  })
})

describe('invoiceLinePriceId', () => {
  it.each<[string, unknown, string | null]>([
    ['the price of the first line', stripeInvoice(), PRICE_ID],
    [
      'an expanded price object',
      stripeInvoice(
        {},
        { pricing: { price_details: { price: { id: PRICE_ID, object: 'price' } } } },
      ),
      PRICE_ID,
    ],
    ['null without lines', stripeInvoice({ lines: { object: 'list', data: [] } }), null],
    ['null without pricing', stripeInvoice({}, { pricing: null }), null],
  ])('reads %s', (_, invoice, expected) => {
    expect(invoiceLinePriceId(parseInvoice(invoice))).toBe(expected)
  })
})

/** The payment_history row of the default invoice. */
const basePayment = {
  user_id: USER_ID,
  provider: 'stripe',
  provider_payment_id: INVOICE_ID,
  provider_charge_id: null,
  amount: 2900,
  currency: 'usd',
  status: 'paid',
  description: 'Pro payment',
  invoice_url: INVOICE_URL,
  created_at: '2026-11-01T10:00:02.000Z',
}

describe('invoicePayment (invoice.payment_succeeded)', () => {
  const bare = {
    id: 'in_bare',
    object: 'invoice',
    amount_paid: 900,
    currency: 'usd',
    created: unix('2026-11-02T00:00:00.000Z'),
  }
  it.each<[string, Fields, [string | null, string | null, string | null], Fields]>([
    ['a paid invoice', stripeInvoice(), [USER_ID, 'Pro', null], {}],
    [
      'the payment intent found for it',
      stripeInvoice(),
      [USER_ID, 'Pro', 'pi_3SxQ2cL4kX9mNpQr0abc'],
      { provider_charge_id: 'pi_3SxQ2cL4kX9mNpQr0abc' },
    ],
    [
      'no payments list from the invoice (the API never sends one in events)',
      stripeInvoice({
        payments: { data: [{ payment: { payment_intent: 'pi_x', type: 'payment_intent' } }] },
      }),
      [USER_ID, 'Pro', null],
      {},
    ],
    [
      'a lower-cased currency and the amount in cents',
      stripeInvoice({ currency: 'EUR', amount_paid: 123456 }),
      [USER_ID, 'Pro', null],
      { currency: 'eur', amount: 123456 },
    ],
    [
      'the status Stripe sent',
      stripeInvoice({ status: 'open', hosted_invoice_url: null }),
      [USER_ID, 'Starter', null],
      { status: 'open', description: 'Starter payment', invoice_url: null },
    ],
    [
      'no plan name or user, and the optional fields missing',
      bare,
      [null, null, null],
      {
        user_id: null,
        provider_payment_id: 'in_bare',
        amount: 900,
        description: 'Subscription payment',
        invoice_url: null,
        created_at: '2026-11-02T00:00:00.000Z',
      },
    ],
  ])('maps %s', (_, invoice, [userId, plan, intent], changes) => {
    expect(invoicePayment(parseInvoice(invoice), userId, plan, intent)).toEqual({
      ...basePayment,
      ...changes,
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
  const event = (type: string, object: unknown) =>
    ({
      id: `evt_${type}`,
      created: unix('2026-11-01T10:00:03.000Z'),
      data: { object },
      type,
    }) as unknown as Stripe.Event
  const ledger = (type: string) => ({
    provider: 'stripe',
    id: `evt_${type}`,
    type,
    occurredAt: '2026-11-01T10:00:03.000Z',
  })
  const proPriceId = () => getPlans().find((plan) => plan.key === 'pro')!.ids.stripe
  const noOtherCall = () => {
    expect(store.recordEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
  }

  beforeEach(() => {
    vi.clearAllMocks()
  })

  it.each([
    ['customer.subscription.created', false],
    ['customer.subscription.updated', false],
    ['customer.subscription.deleted', true],
  ])('%s → applySubscriptionEvent with the mapped fields', async (type, deleted) => {
    const subscription = stripeSubscription(
      { canceled_at: unix('2026-11-20T08:30:00.000Z') },
      { price: { id: proPriceId() } },
    )
    await expect(applyStripeEvent(event(type, subscription))).resolves.toBe('applied')
    expect(store.applySubscriptionEvent).toHaveBeenCalledTimes(1)
    expect(store.applySubscriptionEvent).toHaveBeenCalledWith(ledger(type), USER_ID, {
      ...baseFields,
      status: deleted ? 'canceled' : 'active',
      canceled_at: '2026-11-20T08:30:00.000Z',
    })
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
  })

  it.each([
    ['Legacy', 'Legacy'],
    [null, 'Unknown Plan'],
  ])(
    'names an unknown price by its nickname (%s), else Unknown Plan; no user id → the ledger call looks it up by subscription',
    async (nickname, planName) => {
      const subscription = stripeSubscription(
        { metadata: {} },
        { price: { id: 'price_other', nickname } },
      )
      await applyStripeEvent(event('customer.subscription.updated', subscription))
      expect(store.applySubscriptionEvent).toHaveBeenLastCalledWith(
        ledger('customer.subscription.updated'),
        null,
        { ...baseFields, plan_name: planName, metadata: {} },
      )
    },
  )

  /** getStripe() answering GET /v1/invoice_payments with `list`. */
  function stripeWithPayments(list: () => Promise<unknown>) {
    const invoicePayments = { list: vi.fn(list) }
    vi.mocked(getStripe).mockReturnValue({ invoicePayments } as unknown as Stripe)
    return invoicePayments.list
  }
  const paidInvoice = (overrides: Fields = {}) =>
    stripeInvoice(overrides, { pricing: { price_details: { price: proPriceId() } } })
  // stripe_customer_id is not a column: the ledger call finds the user by it when user_id is null.
  const paymentRow = { ...basePayment, stripe_customer_id: CUSTOMER_ID }
  const succeeded = ledger('invoice.payment_succeeded')
  const paid = (invoice = paidInvoice()) =>
    applyStripeEvent(event('invoice.payment_succeeded', invoice))

  it('invoice.payment_succeeded → recordPaymentEvent with the row, the invoice payment intent and its card', async () => {
    const card = { brand: 'visa', last4: '4242', exp_year: 2029, funding: 'credit' }
    const intent = { id: 'pi_3SxQ2cL4kX9mNpQr0abc', payment_method: { id: 'pm_1', card } }
    const list = stripeWithPayments(async () => ({
      data: [{ status: 'paid', payment: { payment_intent: intent, type: 'payment_intent' } }],
    }))
    await expect(paid()).resolves.toBe('applied')
    // One request: the card comes expanded with the payment intent.
    expect(list).toHaveBeenCalledWith(
      {
        invoice: INVOICE_ID,
        status: 'paid',
        expand: ['data.payment.payment_intent.payment_method'],
      },
      { timeout: expect.any(Number), maxNetworkRetries: 0 },
    )
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(succeeded, {
      ...paymentRow,
      provider_charge_id: 'pi_3SxQ2cL4kX9mNpQr0abc',
      card: { brand: 'visa', last4: '4242' },
    })
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
  })

  it.each([
    [
      'an invoice Stripe does not know',
      new Stripe.errors.StripeInvalidRequestError({
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such invoice: '${INVOICE_ID}'`,
      }),
    ],
    ['invoice payments that cannot be read', new Error('connect ECONNREFUSED')],
  ])('records the payment without its payment intent for %s', async (_, error) => {
    stripeWithPayments(async () => Promise.reject(error))
    await expect(paid()).resolves.toBe('applied')
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(succeeded, paymentRow)
  })

  it('asks for no payment intent for an invoice with nothing paid', async () => {
    const list = stripeWithPayments(async () => ({ data: [] }))
    await paid(paidInvoice({ amount_paid: 0 }))
    expect(list).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).toHaveBeenLastCalledWith(succeeded, {
      ...paymentRow,
      amount: 0,
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
    noOtherCall()
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
    noOtherCall()
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
    noOtherCall()
  })
})
