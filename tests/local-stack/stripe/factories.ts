/** Factories for the subscription objects the flows create (subscriptions and their items). */
import { planFromPrice } from './catalog-objects'
import { randomId } from './http'
import {
  list,
  type Metadata,
  nulls,
  type PriceObject,
  type SubscriptionItemObject,
  type SubscriptionObject,
} from './objects'

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
