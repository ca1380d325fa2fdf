/**
 * Stripe objects as the pinned API version (`2026-10-28.endive`) renders them. The emulator
 * stores these shapes directly; the explicit fields are the ones it reads or changes.
 */
import type { PlanDefinition } from '../../../app/billing/plans'

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
  recurring: { interval: 'day' | 'week' | 'month' | 'year'; interval_count: number } & Record<
    string,
    unknown
  >
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

export type SubscriptionStatus =
  | 'active'
  | 'canceled'
  | 'incomplete'
  | 'incomplete_expired'
  | 'past_due'
  | 'paused'
  | 'trialing'
  | 'unpaid'

export interface CancellationDetails {
  comment: string | null
  feedback: string | null
  feedback_option: string | null
  reason: string | null
}

export interface SubscriptionObject {
  id: string
  object: 'subscription'
  status: SubscriptionStatus
  customer: string
  currency: string
  cancel_at: number | null
  cancel_at_period_end: boolean
  canceled_at: number | null
  ended_at: number | null
  cancellation_details: CancellationDetails
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

export function list<T>(data: T[], url: string, hasMore = false): ListObject<T> {
  return { object: 'list', data, has_more: hasMore, url }
}

export function makeProduct(id: string, plan: PlanDefinition, priceId: string, created: number) {
  const product: ProductObject = {
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
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    tax_details: null,
    type: 'service',
    unit_label: null,
    updated: created,
    url: null,
  }
  return product
}

export function makePrice(id: string, productId: string, plan: PlanDefinition, created: number) {
  const price: PriceObject = {
    id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created,
    currency: plan.currency,
    custom_unit_amount: null,
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
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: plan.amount,
    unit_amount_decimal: String(plan.amount),
  }
  return price
}

/** The legacy `plan` object Stripe still renders on subscription items. */
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
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  }
}

export function makeCustomer(id: string, email: string | null, name: string | null, now: number) {
  const customer: CustomerObject = {
    id,
    object: 'customer',
    address: null,
    balance: 0,
    created: now,
    currency: null,
    default_source: null,
    delinquent: false,
    description: null,
    discount: null,
    email,
    invoice_prefix: id.slice(4, 12).toUpperCase(),
    invoice_settings: {
      custom_fields: null,
      default_payment_method: null,
      footer: null,
      rendering_options: null,
    },
    livemode: false,
    metadata: {},
    name,
    next_invoice_sequence: 1,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  }
  return customer
}
