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
const nulls = (...names: string[]) => Object.fromEntries(names.map((name) => [name, null]))

const NOV1 = '2026-11-01T10:00:00.000Z'
const DEC1 = '2026-12-01T10:00:00.000Z'
const NOV20 = '2026-11-20T08:30:00.000Z'
const JAN1 = '2027-01-01T10:00:00.000Z'
const PAID_AT = '2026-11-01T10:00:02.000Z'
const USER_ID = '5b0d3f4e-7c1a-4c4e-9f0a-00000000c0de'
const SUB_ID = 'sub_1SxQ2aL4kX9mNpQrStUvWx01'
const CUSTOMER_ID = 'cus_TqB3xYzA1b2C3d'
const PRICE_ID = 'price_1SxQ1hL4kX9mNpQrAbCdEf12'
const INVOICE_ID = 'in_1SxQ2bL4kX9mNpQrInInIn01'
const INVOICE_URL = 'https://invoice.stripe.com/i/acct_1Sx/test_YWNjdF8x'
const INTENT_ID = 'pi_3SxQ2cL4kX9mNpQr0abc'

type Fields = Record<string, unknown>

/** A subscription (2026-10-28.endive) of only the required fields but its items. */
const BARE_SUB = { id: SUB_ID, object: 'subscription', customer: CUSTOMER_ID, status: 'incomplete' }
/** An invoice of only the required fields. */
const BARE_INVOICE = { id: INVOICE_ID, object: 'invoice', amount_paid: 2900, currency: 'usd' }

/** The fields read of a subscription (periods on the item), with overrides. */
function stripeSubscription(overrides: Fields = {}, { price, ...item }: Fields = {}) {
  const periods = { current_period_start: unix(NOV1), current_period_end: unix(DEC1) }
  const itemPrice = { id: PRICE_ID, recurring: { interval: 'month' }, ...(price ?? {}) }
  const items = { data: [{ ...periods, price: itemPrice, ...item }] }
  return { ...BARE_SUB, status: 'active', metadata: { user_id: USER_ID }, items, ...overrides }
}

/** The fields read of an invoice (subscription under `parent`), one line, with overrides. */
function stripeInvoice(overrides: Fields = {}, line: Fields = {}) {
  const details = { metadata: { user_id: USER_ID }, subscription: SUB_ID }
  const parent = { subscription_item_details: { subscription: SUB_ID } }
  const lines = { data: [{ parent, pricing: { price_details: { price: PRICE_ID } }, ...line }] }
  const paid = { status: 'paid', hosted_invoice_url: INVOICE_URL, customer: CUSTOMER_ID }
  const invoice = { ...BARE_INVOICE, created: unix(PAID_AT), ...paid, lines }
  return { ...invoice, parent: { subscription_details: details }, ...overrides }
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
  current_period_start: NOV1,
  current_period_end: DEC1,
  cancel_at_period_end: false,
  ...nulls('cancel_at', 'canceled_at', 'trial_start', 'trial_end'),
  ...nulls('cancellation_reason', 'cancellation_feedback', 'cancellation_comment'),
  metadata: { user_id: USER_ID },
}

describe('StripeSubscriptionSchema and StripeInvoiceSchema', () => {
  it('keep unknown fields, on the subscription and its items, and need none of the optional ones', () => {
    const parsed = parseSubscription(stripeSubscription({ new_field: { x: 1 } }, { id: 'si_1' }))
    expect(parsed).toMatchObject({ new_field: { x: 1 }, items: { data: [{ id: 'si_1' }] } })
    expect(parseInvoice(stripeInvoice({ new_field: true }))).toHaveProperty('new_field', true)
    expect(() => parseSubscription({ ...BARE_SUB, items: { data: [] } })).not.toThrow()
    expect(() => parseInvoice({ ...BARE_INVOICE, created: 1 })).not.toThrow()
  })

  it.each<Fields>([
    ...['id', 'object', 'customer', 'status', 'items'].map((field) => ({ [field]: undefined })),
    { object: 'invoice' },
    { items: { data: [{ price: { nickname: 'no id' } }] } },
  ])('rejects a subscription with %o', (overrides) => {
    expect(StripeSubscriptionSchema.safeParse(stripeSubscription(overrides)).success).toBe(false)
  })

  it.each<Fields>([
    ...['id', 'object', 'amount_paid', 'currency', 'created'].map((f) => ({ [f]: undefined })),
    { amount_paid: 29.5 },
  ])('rejects an invoice with %o', (overrides) => {
    expect(StripeInvoiceSchema.safeParse(stripeInvoice(overrides)).success).toBe(false)
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
  afterEach(() => vi.useRealTimers())
  const NOW = '2026-11-21T12:00:00.000Z'
  const noPeriods = nulls('billing_cycle', 'current_period_start', 'current_period_end')
  const yearly = { recurring: { interval: 'year', interval_count: 1 } }
  const inAYear = { billing_cycle: 'year', current_period_end: JAN1 }
  const trial = { status: 'trialing', trial_start: unix(NOV1), trial_end: unix(NOV20) }
  const canceling = { cancel_at_period_end: true, cancel_at: unix(DEC1), canceled_at: unix(NOV20) }
  const canceled = { cancel_at_period_end: true, cancel_at: DEC1, canceled_at: NOV20 }
  const reasons = { comment: 'Pricey', feedback: 'too_expensive', reason: 'cancellation_requested' }
  const explicitNulls = nulls('cancel_at_period_end', 'cancellation_details', 'metadata')
  const paymentFailed = { status: 'canceled', canceled_at: unix(NOV20) }
  const bare = { ...BARE_SUB, items: { data: [{ price: { id: PRICE_ID } }] } }

  it.each<[string, Fields, Fields, boolean?]>([
    ['created: plan, billing cycle, periods from the item, metadata', stripeSubscription(), {}],
    [
      'created in a yearly trial: trial dates, status, the interval as the billing cycle',
      stripeSubscription(trial, { current_period_end: unix(JAN1), price: yearly }),
      { status: 'trialing', trial_start: NOV1, trial_end: NOV20, ...inAYear },
    ],
    [
      'updated: cancel at period end with the reason, feedback and comment',
      stripeSubscription({ ...canceling, cancellation_details: reasons }),
      {
        ...canceled,
        cancellation_reason: 'cancellation_requested',
        cancellation_feedback: 'too_expensive',
        cancellation_comment: 'Pricey',
      },
    ],
    [
      'updated: resumed (cancellation cleared), renewed period, past_due',
      stripeSubscription({ status: 'past_due' }, { current_period_end: unix(JAN1) }),
      { status: 'past_due', current_period_end: JAN1 },
    ],
    // Not deleted: canceled_at stays null when Stripe sent none.
    [
      'a status canceled, an expanded customer, explicit nulls as null, false and {}',
      stripeSubscription({ ...explicitNulls, status: 'canceled', customer: { id: CUSTOMER_ID } }),
      { status: 'canceled', metadata: {} },
    ],
    [
      'no items as a null cycle and periods',
      stripeSubscription({ items: { data: [] } }),
      noPeriods,
    ],
    [
      'missing optional fields as null, false and {}',
      bare,
      { status: 'incomplete', ...noPeriods, metadata: {} },
    ],
    [
      'deleted: canceled with the canceled_at Stripe sent',
      stripeSubscription({ ...paymentFailed, cancellation_details: { reason: 'payment_failed' } }),
      { status: 'canceled', canceled_at: NOV20, cancellation_reason: 'payment_failed' },
      true,
    ],
    [
      'deleted: canceled whatever status the payload carries, canceled_at now when absent',
      stripeSubscription({ status: 'incomplete_expired' }),
      { status: 'canceled', canceled_at: NOW },
      true,
    ],
  ])('maps %s', (_, subscription, changes, deleted) => {
    vi.useFakeTimers({ now: new Date(NOW) })
    const fields = subscriptionFields(parseSubscription(subscription), 'Pro', { deleted })
    expect(fields).toEqual({ ...baseFields, ...changes })
  })
})

describe('invoiceSubscriptionId', () => {
  const oneOffLine = { parent: { invoice_item_details: {}, subscription_item_details: null } }
  /** An invoice without a parent, its lines the default line with each of `lines`. */
  const linesOnly = (...lines: Fields[]) => {
    const data = lines.map((line) => ({ ...stripeInvoice().lines.data[0], ...line }))
    return stripeInvoice({ parent: null, lines: { data } })
  }
  const expanded = { subscription: { id: 'sub_expanded', object: 'subscription' } }
  const expandedParent = stripeInvoice({ parent: { subscription_details: expanded } })
  const quote = { quote_details: { quote: 'qt_1' }, subscription_details: null }

  it.each<[string, unknown, string | null]>([
    ['from parent.subscription_details', stripeInvoice(), SUB_ID],
    ['from an expanded subscription object under parent', expandedParent, 'sub_expanded'],
    ['from the line items when parent is null', stripeInvoice({ parent: null }), SUB_ID],
    ['from the line items when parent is a quote', stripeInvoice({ parent: quote }), SUB_ID],
    ['skipping line items without a subscription', linesOnly(oneOffLine, {}), SUB_ID],
    ['null without a subscription anywhere', linesOnly({ parent: null }), null],
    ['null without a parent or lines', stripeInvoice({ parent: null, lines: undefined }), null],
  ])('reads the subscription %s', (_, invoice, expected) => {
    expect(invoiceSubscriptionId(parseInvoice(invoice))).toBe(expected)
  })
})

describe('invoiceLinePriceId', () => {
  const expanded = { price_details: { price: { id: PRICE_ID, object: 'price' } } }
  it.each<[string, unknown, string | null]>([
    ['the price of the first line', stripeInvoice(), PRICE_ID],
    ['an expanded price object', stripeInvoice({}, { pricing: expanded }), PRICE_ID],
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
  created_at: PAID_AT,
}

describe('invoicePayment (invoice.payment_succeeded)', () => {
  // The API never sends an invoice's payments list in events: one there is not read.
  const payments = { data: [{ payment: { payment_intent: 'pi_x', type: 'payment_intent' } }] }
  const eur = { currency: 'EUR', amount_paid: 123456 }
  const cents = { currency: 'eur', amount: 123456 }
  const open = { status: 'open', hosted_invoice_url: null }
  const starter = { status: 'open', description: 'Starter payment', invoice_url: null }
  const bare = { ...BARE_INVOICE, created: unix(PAID_AT) }
  const none = { ...nulls('user_id', 'invoice_url'), description: 'Subscription payment' }

  it.each<[string, Fields, string | null, string | null, Fields]>([
    ['a paid invoice, no payments list', stripeInvoice({ payments }), USER_ID, 'Pro', {}],
    ['a lower-cased currency, the amount in cents', stripeInvoice(eur), USER_ID, 'Pro', cents],
    ['the status Stripe sent', stripeInvoice(open), USER_ID, 'Starter', starter],
    ['no plan name or user, the optional fields missing', bare, null, null, none],
  ])('maps %s', (_, invoice, userId, plan, changes) => {
    expect(invoicePayment(parseInvoice(invoice), userId, plan, null)).toEqual({
      ...basePayment,
      ...changes,
    })
  })
})

describe('paidPaymentIntent (GET /v1/invoice_payments)', () => {
  const payments = (...data: unknown[]) =>
    paidPaymentIntent(StripeInvoicePaymentsSchema.parse({ object: 'list', data, has_more: false }))
  const paid = (intent: unknown) => ({
    status: 'paid',
    payment: { payment_intent: intent, type: 'payment_intent' },
  })
  const card = { brand: 'visa', last4: '4242' }
  const method = { id: 'pm_1', card: { ...card, exp_year: 2029 } }
  const intent = { id: 'pi_expanded' }
  const expanded = { ...intent, object: 'payment_intent', payment_method: method }
  const unexpanded = paid({ ...expanded, payment_method: 'pm_1' })
  const open = { ...paid('pi_open'), status: 'open' }
  const record = { status: 'paid', payment: { type: 'payment_record', payment_record: 'pr_1' } }

  it.each<[string, unknown[], unknown]>([
    ['a plain intent', [paid(INTENT_ID)], { id: INTENT_ID, card: null }],
    ['its card when expanded', [paid(expanded)], { id: 'pi_expanded', card }],
    ['no card when not', [unexpanded], { ...intent, card: null }],
    ['nothing of open payments, nor of those without one', [open, record], null],
    ['the paid one among them', [open, record, paid('pi_paid')], { id: 'pi_paid', card: null }],
    ['nothing of none', [], null],
  ])('reads the intent of the paid payment: %s', (_, data, expected) => {
    expect(payments(...data)).toEqual(expected)
  })
})

describe('applyStripeEvent: which store call each event type makes', () => {
  const AT = '2026-11-01T10:00:03.000Z'
  const event = (type: string, object: unknown) =>
    ({ id: `evt_${type}`, created: unix(AT), data: { object }, type }) as unknown as Stripe.Event
  const ledger = (type: string) => ({ provider: 'stripe', id: `evt_${type}`, type, occurredAt: AT })
  const proPriceId = () => getPlans().find((plan) => plan.key === 'pro')!.ids.stripe
  const noOtherCall = () => {
    expect(store.recordEvent).not.toHaveBeenCalled()
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
  }

  beforeEach(() => vi.clearAllMocks())

  // An unknown price is named by its nickname, else Unknown Plan; without a user id the ledger
  // call looks the user up by subscription.
  const [created, updated, deleted] = ['created', 'updated', 'deleted'].map(
    (type) => `customer.subscription.${type}`,
  )
  const anonymous = { metadata: {} }
  const legacy = { id: 'price_other', nickname: 'Legacy' }
  const unnamed = { ...legacy, nickname: null }
  it.each<[string, Fields, Fields | null, string | null, Fields]>([
    [created, {}, null, USER_ID, {}],
    [updated, {}, null, USER_ID, {}],
    [deleted, {}, null, USER_ID, { status: 'canceled' }],
    [updated, anonymous, legacy, null, { ...anonymous, plan_name: 'Legacy' }],
    [updated, anonymous, unnamed, null, { ...anonymous, plan_name: 'Unknown Plan' }],
  ])('%s %o, price %o → applySubscriptionEvent', async (type, fields, price, userId, changes) => {
    const subscription = { canceled_at: unix(NOV20), ...fields }
    const data = stripeSubscription(subscription, { price: price ?? { id: proPriceId() } })
    await expect(applyStripeEvent(event(type, data))).resolves.toBe('applied')
    expect(vi.mocked(store.applySubscriptionEvent).mock.calls).toEqual([
      [ledger(type), userId, { ...baseFields, canceled_at: NOV20, ...changes }],
    ])
    expect(store.recordPaymentEvent).not.toHaveBeenCalled()
  })

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
    const card = { brand: 'visa', last4: '4242' }
    const method = { id: 'pm_1', card: { ...card, exp_year: 2029, funding: 'credit' } }
    const intent = { id: INTENT_ID, payment_method: method }
    const list = stripeWithPayments(async () => ({
      data: [{ status: 'paid', payment: { payment_intent: intent, type: 'payment_intent' } }],
    }))
    await expect(paid()).resolves.toBe('applied')
    // One request: the card comes expanded with the payment intent.
    const expand = ['data.payment.payment_intent.payment_method']
    expect(list).toHaveBeenCalledWith(
      { invoice: INVOICE_ID, status: 'paid', expand },
      { timeout: expect.any(Number), maxNetworkRetries: 0 },
    )
    const row = { ...paymentRow, provider_charge_id: INTENT_ID, card }
    expect(store.recordPaymentEvent).toHaveBeenCalledWith(succeeded, row)
    expect(store.applySubscriptionEvent).not.toHaveBeenCalled()
  })

  const missing = new Stripe.errors.StripeInvalidRequestError({
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such invoice: '${INVOICE_ID}'`,
  })
  it.each([
    ['an invoice Stripe does not know', missing],
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

  // When it failed (the event's time) and when Stripe retries (retry_at), for the past-due
  // notice, in the same call; no retry planned (next_payment_attempt null) is said as such.
  // The second names no customer email (the mail goes to the account) nor a plan's price.
  const RETRY = '2026-12-04T11:00:00.000Z'
  const failure = { invoice_id: INVOICE_ID, attempt: 2, amount: 1900, currency: 'usd' }
  const noPlan = { customer_email: null, lines: { data: [] } }
  it.each([
    ['', { next_payment_attempt: unix(RETRY) }, RETRY, 'Pro payment'],
    [' without a customer email nor a plan price', noPlan, null, 'Subscription payment'],
  ])(
    'invoice.payment_failed%s → the ledger row, the failed row in the billing history and the mail in one call',
    async (_, overrides, retryAt, description) => {
      const url = 'https://invoice.stripe.com/i/acct_1/test_1'
      const due = { amount_paid: 0, amount_due: 1900, attempt_count: 2, hosted_invoice_url: url }
      const invoice = paidInvoice({ status: 'open', ...due, ...overrides })
      const failed = event('invoice.payment_failed', invoice)
      await expect(applyStripeEvent(failed)).resolves.toBe('notified')
      expect(store.recordPaymentFailure).toHaveBeenCalledWith(
        ledger('invoice.payment_failed'),
        USER_ID,
        { ...failure, invoice_url: url, retry_at: retryAt },
        { ...paymentRow, amount: 1900, status: 'failed', invoice_url: url, description },
      )
      noOtherCall()
    },
  )

  it('an unhandled type touches nothing; a payload of the wrong shape is rejected before any store call', async () => {
    const customer = { id: CUSTOMER_ID, object: 'customer' }
    const subscription = { id: SUB_ID, object: 'subscription' }
    await expect(applyStripeEvent(event('customer.created', customer))).resolves.toBe('unhandled')
    const updated = event('customer.subscription.updated', subscription)
    await expect(applyStripeEvent(updated)).rejects.toThrow()
    await expect(
      applyStripeEvent(event('invoice.payment_succeeded', { id: 'in_1', object: 'invoice' })),
    ).rejects.toThrow()
    noOtherCall()
  })
})
