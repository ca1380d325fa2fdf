/** Factories for the billing objects the flows create (subscriptions, invoices, sessions). */
import { randomId } from './http'
import {
  list,
  planFromPrice,
  type CheckoutSessionObject,
  type CustomerObject,
  type InvoiceObject,
  type Metadata,
  type PriceObject,
  type SubscriptionItemObject,
  type SubscriptionObject,
} from './objects'

/** Adds a billing interval to a unix timestamp (calendar months, clamped to the month's end). */
export function addInterval(timestamp: number, price: PriceObject) {
  const { interval, interval_count: count } = price.recurring
  const date = new Date(timestamp * 1000)
  if (interval === 'day' || interval === 'week') {
    const days = (interval === 'week' ? 7 : 1) * count
    return timestamp + days * 86_400
  }
  const months = (interval === 'year' ? 12 : 1) * count
  const day = date.getUTCDate()
  date.setUTCDate(1)
  date.setUTCMonth(date.getUTCMonth() + months)
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate()
  date.setUTCDate(Math.min(day, lastDay))
  return Math.floor(date.getTime() / 1000)
}

export function makeSubscriptionItem(
  subscriptionId: string,
  price: PriceObject,
  quantity: number,
  periodStart: number,
): SubscriptionItemObject {
  return {
    id: randomId('si', 14),
    object: 'subscription_item',
    billing_thresholds: null,
    created: periodStart,
    current_period_end: addInterval(periodStart, price),
    current_period_start: periodStart,
    discounts: [],
    metadata: {},
    plan: planFromPrice(price),
    price,
    quantity,
    subscription: subscriptionId,
    tax_rates: [],
  }
}

export interface NewSubscription {
  customer: string
  price: PriceObject
  quantity: number
  metadata: Metadata
  automaticTax: boolean
  now: number
}

export function makeSubscription(input: NewSubscription): SubscriptionObject {
  const id = randomId('sub')
  const item = makeSubscriptionItem(id, input.price, input.quantity, input.now)
  return {
    id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: input.automaticTax, liability: null },
    billing_cycle_anchor: input.now,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: { proration_discounts: 'included' }, type: 'flexible' },
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
    collection_method: 'charge_automatically',
    created: input.now,
    currency: input.price.currency,
    customer: input.customer,
    customer_account: null,
    days_until_due: null,
    default_payment_method: randomId('pm', 24),
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: { ...list([item], `/v1/subscription_items?subscription=${id}`), total_count: 1 },
    latest_invoice: null,
    livemode: false,
    metadata: { ...input.metadata },
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: {
      payment_method_options: null,
      payment_method_types: null,
      save_default_payment_method: 'off',
    },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: input.now,
    status: 'active',
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    trial_start: null,
  }
}

export interface NewInvoice {
  subscription: SubscriptionObject
  customer: CustomerObject
  billingReason: 'subscription_create' | 'subscription_cycle' | 'subscription_update'
  periodStart: number
  periodEnd: number
  publicUrl: string
  now: number
}

/** A draft invoice for the subscription's current items; the flows finalize and pay it. */
export function makeInvoice(input: NewInvoice): InvoiceObject {
  const id = randomId('in')
  const sub = input.subscription
  const lines = sub.items.data.map((item) => makeLine(id, sub, item))
  const total = lines.reduce((sum, line) => sum + (line.amount as number), 0)
  const automaticTax = (sub.automatic_tax as { enabled: boolean }).enabled
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Local Stripe Emulator',
    account_tax_ids: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: {
      disabled_reason: null,
      enabled: automaticTax,
      liability: automaticTax ? { type: 'self' } : null,
      provider: automaticTax ? 'stripe' : null,
      status: automaticTax ? 'complete' : null,
    },
    automatically_finalizes_at: null,
    billing_reason: input.billingReason,
    collection_method: 'charge_automatically',
    created: input.now,
    currency: sub.currency,
    custom_fields: null,
    customer: input.customer.id,
    customer_account: null,
    customer_address: null,
    customer_email: input.customer.email,
    customer_name: input.customer.name,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    due_date: null,
    effective_at: null,
    ending_balance: null,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: `${input.publicUrl}/invoices/${id}`,
    invoice_pdf: `${input.publicUrl}/invoices/${id}/pdf`,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: { ...list(lines, `/v1/invoices/${id}/lines`), total_count: lines.length },
    livemode: false,
    metadata: {},
    next_payment_attempt: null,
    number: null,
    on_behalf_of: null,
    parent: {
      quote_details: null,
      subscription_details: { metadata: { ...sub.metadata }, subscription: sub.id },
      type: 'subscription_details',
    },
    payment_settings: {
      default_mandate: null,
      payment_method_options: null,
      payment_method_types: null,
    },
    period_end: input.periodEnd,
    period_start: input.periodStart,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    status: 'draft',
    status_transitions: {
      finalized_at: null,
      marked_uncollectible_at: null,
      paid_at: null,
      voided_at: null,
    },
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: null,
  }
}

function makeLine(invoiceId: string, sub: SubscriptionObject, item: SubscriptionItemObject) {
  const amount = item.price.unit_amount * item.quantity
  const name = (item.price.nickname as string | null) ?? item.price.id
  const money = `$${(item.price.unit_amount / 100).toFixed(2)}`
  return {
    id: randomId('il', 24),
    object: 'line_item',
    amount,
    currency: item.price.currency,
    description: `${item.quantity} × ${name} (at ${money} / ${item.price.recurring.interval})`,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: { ...sub.metadata },
    parent: {
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration: false,
        proration_details: { credited_items: null },
        subscription: sub.id,
        subscription_item: item.id,
      },
      type: 'subscription_item_details',
    },
    period: { end: item.current_period_end, start: item.current_period_start },
    pretax_credit_amounts: [],
    pricing: {
      price_details: { price: item.price.id, product: item.price.product },
      type: 'price_details',
      unit_amount_decimal: String(item.price.unit_amount),
    },
    quantity: item.quantity,
    subscription: sub.id,
    subtotal: amount,
    taxes: [],
  }
}

export type CheckoutSessionInput = Pick<
  CheckoutSessionObject,
  | 'mode'
  | 'customer'
  | 'customer_email'
  | 'client_reference_id'
  | 'metadata'
  | 'success_url'
  | 'cancel_url'
  | 'amount_total'
  | 'currency'
> & { automaticTax: boolean; allowPromotionCodes: boolean | null; now: number; publicUrl: string }

export function makeCheckoutSession(input: CheckoutSessionInput): CheckoutSessionObject {
  const id = randomId('cs_test', 58)
  return {
    id,
    object: 'checkout.session',
    adaptive_pricing: { enabled: false },
    after_expiration: null,
    allow_promotion_codes: input.allowPromotionCodes,
    amount_subtotal: input.amount_total,
    amount_total: input.amount_total,
    automatic_tax: { enabled: input.automaticTax, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: input.cancel_url,
    client_reference_id: input.client_reference_id,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: input.now,
    currency: input.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: null,
      terms_of_service_acceptance: null,
    },
    customer: input.customer,
    customer_account: null,
    customer_creation: input.customer ? null : 'always',
    customer_details: null,
    customer_email: input.customer_email,
    discounts: [],
    expires_at: input.now + 24 * 3600,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    metadata: input.metadata,
    mode: input.mode,
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'always',
    payment_method_configuration_details: null,
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    permissions: null,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: input.success_url,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: `${input.publicUrl}/checkout/${id}`,
    wallet_options: null,
  }
}
