/**
 * Stripe objects as the pinned API version (`2026-10-28.endive`) renders them. The emulator
 * stores these shapes directly; the explicit fields are the ones it reads or changes.
 */
import type { CatalogPlan } from '../catalog'
import type { ChargeObject, DisputeObject } from './charges'
import { randomId } from './http'
import type {
  InvoicePaymentObject,
  PaymentIntentObject,
  PaymentMethodObject,
} from './payment-objects'
import type { Store } from './store'

export const API_VERSION = '2026-10-28.endive'

export type Metadata = Record<string, string>

export interface ListObject<T> {
  object: 'list'
  data: T[]
  has_more: boolean
  url: string
  total_count?: number
}

export interface ProductObject {
  id: string
  object: 'product'
  name: string
  [key: string]: unknown
}

export interface PriceObject {
  id: string
  object: 'price'
  product: string
  unit_amount: number
  currency: string
  recurring: { interval: 'month' | 'year'; interval_count: number } & Record<string, unknown>
  [key: string]: unknown
}

export interface CustomerObject {
  id: string
  object: 'customer'
  email: string | null
  name: string | null
  metadata: Metadata
  [key: string]: unknown
}

export interface SubscriptionItemObject {
  id: string
  object: 'subscription_item'
  price: PriceObject
  plan: Record<string, unknown>
  quantity: number
  subscription: string
  current_period_start: number
  current_period_end: number
  [key: string]: unknown
}

export interface SubscriptionObject {
  id: string
  object: 'subscription'
  status: 'active' | 'canceled' | 'incomplete' | 'past_due' | 'unpaid'
  customer: string
  currency: string
  cancel_at: number | null
  cancel_at_period_end: boolean
  canceled_at: number | null
  ended_at: number | null
  cancellation_details: Record<'comment' | 'feedback' | 'feedback_option' | 'reason', string | null>
  items: ListObject<SubscriptionItemObject>
  latest_invoice: string | null
  metadata: Metadata
  [key: string]: unknown
}

export interface InvoiceObject {
  id: string
  object: 'invoice'
  customer: string
  status: 'draft' | 'open' | 'paid' | 'uncollectible' | 'void'
  amount_due: number
  amount_paid: number
  amount_remaining: number
  attempt_count: number
  attempted: boolean
  currency: string
  total: number
  hosted_invoice_url: string
  billing_reason: string
  parent: {
    type: 'subscription_details'
    quote_details: null
    subscription_details: { subscription: string; metadata: Metadata }
  } | null
  status_transitions: {
    finalized_at: number | null
    marked_uncollectible_at: number | null
    paid_at: number | null
    voided_at: number | null
  }
  lines: ListObject<Record<string, unknown>>
  [key: string]: unknown
}

export interface CheckoutSessionObject {
  id: string
  object: 'checkout.session'
  status: 'open' | 'complete' | 'expired'
  payment_status: 'paid' | 'unpaid' | 'no_payment_required'
  mode: 'subscription' | 'payment' | 'setup'
  customer: string | null
  customer_email: string | null
  client_reference_id: string | null
  subscription: string | null
  invoice: string | null
  metadata: Metadata
  success_url: string | null
  cancel_url: string | null
  url: string | null
  amount_total: number
  currency: string
  expires_at: number
  [key: string]: unknown
}

export interface PortalSessionObject {
  id: string
  object: 'billing_portal.session'
  customer: string
  return_url: string | null
  url: string
  created: number
  [key: string]: unknown
}

export type StripeObject =
  | ProductObject
  | PriceObject
  | CustomerObject
  | SubscriptionObject
  | InvoiceObject
  | CheckoutSessionObject
  | PortalSessionObject
  | PaymentIntentObject
  | InvoicePaymentObject
  | PaymentMethodObject
  | ChargeObject
  | DisputeObject

/** Fields the object has with the value null, named in one string (as the pinned version renders them). */
export function nulls(names: string): Record<string, null> {
  return Object.fromEntries(names.split(/\s+/).map((name) => [name, null]))
}

export function list<T>(data: T[], url: string, hasMore = false): ListObject<T> {
  return { object: 'list', data, has_more: hasMore, url }
}

export function makeCustomer(id: string, email: string | null, name: string | null, now: number) {
  const customer: CustomerObject = {
    id,
    object: 'customer',
    ...nulls('address currency default_source description discount phone shipping test_clock'),
    balance: 0,
    created: now,
    delinquent: false,
    email,
    invoice_prefix: id.slice(4, 12).toUpperCase(),
    invoice_settings: nulls('custom_fields default_payment_method footer rendering_options'),
    livemode: false,
    metadata: {},
    name,
    next_invoice_sequence: 1,
    preferred_locales: [],
    tax_exempt: 'none',
  }
  return customer
}

export function makeProduct(
  id: string,
  plan: CatalogPlan,
  priceId: string,
  created: number,
): ProductObject {
  return {
    id,
    object: 'product',
    active: true,
    created,
    default_price: priceId,
    description: plan.description,
    images: [],
    livemode: false,
    marketing_features: plan.features.map((name) => ({ name })),
    metadata: { plan: plan.key },
    name: plan.name,
    ...nulls(`package_dimensions shippable statement_descriptor tax_code tax_details unit_label
      url`),
    type: 'service',
    updated: created,
  }
}

export function makePrice(
  id: string,
  productId: string,
  plan: CatalogPlan,
  created: number,
): PriceObject {
  return {
    id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created,
    currency: plan.currency,
    ...nulls('custom_unit_amount tiers_mode transform_quantity'),
    livemode: false,
    lookup_key: `${plan.key}_${plan.interval}ly`,
    metadata: { plan: plan.key },
    nickname: plan.name,
    product: productId,
    recurring: {
      interval: plan.interval,
      interval_count: 1,
      meter: null,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    tax_behavior: 'unspecified',
    type: 'recurring',
    unit_amount: plan.amount,
    unit_amount_decimal: String(plan.amount),
  }
}

export function planFromPrice(price: PriceObject) {
  return {
    id: price.id,
    object: 'plan',
    active: true,
    amount: price.unit_amount,
    amount_decimal: String(price.unit_amount),
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    interval: price.recurring.interval,
    interval_count: price.recurring.interval_count,
    livemode: false,
    metadata: price.metadata,
    ...nulls('meter tiers_mode transform_usage trial_period_days'),
    nickname: price.nickname,
    product: price.product,
    usage_type: 'licensed',
  }
}

/** Adds a billing interval to a unix timestamp (calendar months, clamped to the month's end). */
export function addInterval(timestamp: number, price: PriceObject) {
  const { interval, interval_count: count } = price.recurring
  const date = new Date(timestamp * 1000)
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
    cancel_at: null,
    canceled_at: null,
    ended_at: null,
    latest_invoice: null,
    ...nulls(`application application_fee_percent billing_cycle_anchor_config billing_thresholds
      customer_account days_until_due default_source description       managed_payments next_pending_invoice_item_invoice on_behalf_of
      pause_collection pending_invoice_item_interval pending_setup_intent pending_update schedule
      test_clock transfer_data trial_end trial_start`),
    automatic_tax: { disabled_reason: null, enabled: input.automaticTax, liability: null },
    billing_cycle_anchor: input.now,
    billing_mode: { flexible: { proration_discounts: 'included' }, type: 'flexible' },
    billing_schedules: [],
    cancel_at_period_end: false,
    cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
    collection_method: 'charge_automatically',
    created: input.now,
    currency: input.price.currency,
    customer: input.customer,
    default_payment_method: randomId('pm', 24),
    default_tax_rates: [],
    discounts: [],
    invoice_settings: {
      ...nulls('account_tax_ids custom_fields description footer'),
      issuer: { type: 'self' },
    },
    items: { ...list([item], `/v1/subscription_items?subscription=${id}`), total_count: 1 },
    livemode: false,
    metadata: { ...input.metadata },
    payment_settings: {
      payment_method_options: null,
      payment_method_types: null,
      save_default_payment_method: 'off',
    },
    start_date: input.now,
    status: 'active',
    trial_settings: {
      end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' },
    },
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
    subscription: null,
    invoice: null,
    adaptive_pricing: { enabled: false },
    ...nulls(`after_expiration allowed_payment_method_types billing_address_collection
      client_secret collected_information consent consent_collection currency_conversion
      customer_account customer_details integration_identifier invoice_creation locale
      managed_payments origin_context payment_intent payment_link
      payment_method_configuration_details permissions recovered_from
      saved_payment_method_options setup_intent shipping_address_collection shipping_cost
      submit_type wallet_options`),
    allow_promotion_codes: input.allowPromotionCodes,
    amount_subtotal: input.amount_total,
    amount_total: input.amount_total,
    automatic_tax: { enabled: input.automaticTax, liability: null, provider: null, status: null },
    cancel_url: input.cancel_url,
    client_reference_id: input.client_reference_id,
    created: input.now,
    currency: input.currency,
    custom_fields: [],
    custom_text: nulls('after_submit shipping_address submit terms_of_service_acceptance'),
    customer: input.customer,
    customer_creation: input.customer ? null : 'always',
    customer_email: input.customer_email,
    discounts: [],
    expires_at: input.now + 24 * 3600,
    livemode: false,
    metadata: input.metadata,
    mode: input.mode,
    payment_method_collection: 'always',
    payment_method_options: { card: { request_three_d_secure: 'automatic' } },
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    phone_number_collection: { enabled: false },
    shipping_options: [],
    status: 'open',
    success_url: input.success_url,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: `${input.publicUrl}/checkout/${id}`,
  }
}

export interface LineItemObject {
  id: string
  object: 'item'
  price: PriceObject
  quantity: number
  [key: string]: unknown
}

/** A line item as Stripe renders it: the whole price, and the product's name as description. */
export function makeLineItem(store: Store, price: PriceObject, quantity: number): LineItemObject {
  const amount = price.unit_amount * quantity
  return {
    id: randomId('li', 24),
    object: 'item',
    adjustable_quantity: null,
    amount_discount: 0,
    amount_subtotal: amount,
    amount_tax: 0,
    amount_total: amount,
    currency: price.currency,
    description: store.products.get(price.product)?.name ?? null,
    metadata: {},
    price: structuredClone(price),
    quantity,
  }
}
