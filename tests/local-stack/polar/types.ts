import type { Attempt, FaultTarget } from '../http'

export type Metadata = Record<string, string | number | boolean>

export interface Address {
  line1: string | null
  line2: string | null
  postal_code: string | null
  city: string | null
  state: string | null
  country: string
}

export interface OrganizationRecord {
  id: string
  name: string
  /** Settings > Subscriptions in Polar's dashboard (`OrganizationSubscriptionSettings`). */
  subscription_settings: { allow_multiple_subscriptions: boolean }
}

export interface ProductRecord {
  id: string
  price_id: string
  name: string
  description: string | null
  amount: number
  currency: string
  recurring_interval: 'month' | 'year'
  created_at: string
}

export interface CustomerRecord {
  id: string
  created_at: string
  modified_at: string | null
  email: string
  name: string | null
  external_id: string | null
  metadata: Metadata
  billing_address: Address | null
  /** Set by a deletion, which also clears `external_id` (kept in metadata `__external_id`). */
  deleted_at?: string
}

export interface CheckoutRecord {
  id: string
  client_secret: string
  created_at: string
  modified_at: string | null
  status: 'open' | 'confirmed' | 'succeeded'
  product_ids: string[]
  product_id: string
  customer_id: string | null
  customer_email: string | null
  customer_name: string | null
  external_customer_id: string | null
  metadata: Metadata
  customer_metadata: Metadata
  success_url: string
  expires_at: string
  subscription_id: string | null
}

export interface SubscriptionRecord {
  id: string
  created_at: string
  modified_at: string | null
  customer_id: string
  product_id: string
  checkout_id: string | null
  status: 'active' | 'past_due' | 'canceled'
  amount: number
  currency: string
  recurring_interval: 'month' | 'year'
  current_period_start: string
  current_period_end: string
  cancel_at_period_end: boolean
  canceled_at: string | null
  started_at: string
  ends_at: string | null
  ended_at: string | null
  past_due_at: string | null
  metadata: Metadata
  /** Prorations (minor units, signed) to add to the next period's order. */
  pending_proration?: number
}

export interface OrderRecord {
  id: string
  created_at: string
  modified_at: string | null
  status: 'pending' | 'paid' | 'refunded' | 'partially_refunded'
  customer_id: string
  product_id: string
  subscription_id: string | null
  checkout_id: string | null
  billing_reason: 'subscription_create' | 'subscription_cycle'
  /** Net of tax; Polar adds `tax_amount` by the billing address (`PolarState.taxRates`). */
  amount: number
  tax_amount: number
  currency: string
  refunded_amount: number
  refunded_tax_amount: number
  billing_name: string | null
  billing_address: Address | null
  invoice_number: string
  is_invoice_generated: boolean
  metadata: Metadata
  period_start: string | null
  period_end: string | null
}

export interface RefundRecord {
  id: string
  created_at: string
  order_id: string
  subscription_id: string | null
  customer_id: string
  amount: number
  tax_amount: number
  currency: string
}

export interface CustomerSessionRecord {
  id: string
  token: string
  created_at: string
  expires_at: string
  customer_id: string
  return_url: string | null
}

export interface Delivery {
  /** The `webhook-id`: unique per event, identical across retries and re-sends. */
  id: string
  type: string
  body: string
  createdAt: string
  /** `pending` (not tried yet, or held back), `delivering`, `retrying`, or final: `succeeded`,
   * `failed` (its attempts ran out), `skipped` (the endpoint was disabled). */
  status: 'pending' | 'delivering' | 'retrying' | 'succeeded' | 'failed' | 'skipped'
  attempts: Attempt[]
  nextAttemptAt: string | null
}

export interface Fault extends FaultTarget {
  /** Status to answer with; omitted means "delay, then answer normally" (a slow or hanging API). */
  status?: number
  count: number
  delayMs?: number
  /** The answer's body (default: an `InjectedFault` error). */
  body?: unknown
}
