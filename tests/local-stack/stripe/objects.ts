/**
 * Stripe objects as the pinned API version (`2026-10-28.endive`) renders them. The emulator
 * stores these shapes directly; the explicit fields are the ones it reads or changes.
 */

import type { ChargeObject, DisputeObject } from './charges'
import type {
  InvoicePaymentObject,
  PaymentIntentObject,
  PaymentMethodObject,
} from './payment-objects'

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
