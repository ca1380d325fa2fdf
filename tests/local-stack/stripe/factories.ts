/** Factories for the billing objects the flows create (subscriptions, invoices, sessions). */
import { planFromPrice } from './catalog-objects'
import { randomId } from './http'
import {
  list,
  type CheckoutSessionObject,
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
    current_trial: null,
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
    billing_schedules: [],
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
    invoice_settings: {
      account_tax_ids: null,
      custom_fields: null,
      description: null,
      footer: null,
      issuer: { type: 'self' },
    },
    items: { ...list([item], `/v1/subscription_items?subscription=${id}`), total_count: 1 },
    latest_invoice: null,
    livemode: false,
    managed_payments: null,
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
    trial_settings: {
      end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' },
    },
    trial_start: null,
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
    allowed_payment_method_types: null,
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
    integration_identifier: null,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
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
