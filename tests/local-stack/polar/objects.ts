import type { PolarState } from './state'
import type {
  CheckoutRecord,
  CustomerRecord,
  CustomerSessionRecord,
  OrderRecord,
  ProductRecord,
  RefundRecord,
  SubscriptionRecord,
} from './types'

/** Wire objects as Polar serializes them (API 2026-10); contract.test.ts checks them. */

/** Fields the object has with the value null, named in one string (as Polar serializes them). */
export function nulls(names: string): Record<string, null> {
  return Object.fromEntries(names.split(/\s+/).map((name) => [name, null]))
}

function priceJson(product: ProductRecord) {
  return {
    created_at: product.created_at,
    modified_at: null,
    id: product.price_id,
    source: 'catalog',
    amount_type: 'fixed',
    price_currency: product.currency,
    tax_behavior: null,
    is_archived: false,
    product_id: product.id,
    price_amount: product.amount,
  }
}

function productBase(state: PolarState, product: ProductRecord) {
  return {
    id: product.id,
    created_at: product.created_at,
    ...nulls('modified_at trial_interval trial_interval_count meter_interval meter_interval_count'),
    name: product.name,
    description: product.description,
    visibility: 'public',
    recurring_interval: product.recurring_interval,
    recurring_interval_count: 1,
    is_recurring: true,
    is_archived: false,
    organization_id: state.organization.id,
  }
}

function productJson(state: PolarState, product: ProductRecord) {
  return {
    ...productBase(state, product),
    metadata: {},
    is_deletable: false,
    prices: [priceJson(product)],
    benefits: [],
    medias: [],
    attached_custom_fields: [],
  }
}

function checkoutProductJson(state: PolarState, product: ProductRecord) {
  return {
    ...productBase(state, product),
    prices: [priceJson(product)],
    benefits: [],
    medias: [],
  }
}

export function customerJson(state: PolarState, customer: CustomerRecord) {
  return {
    id: customer.id,
    created_at: customer.created_at,
    modified_at: customer.modified_at,
    metadata: customer.metadata,
    external_id: customer.external_id,
    email: customer.email,
    email_verified: true,
    type: 'individual',
    name: customer.name,
    billing_name: customer.name,
    billing_address: customer.billing_address,
    ...nulls('tax_id locale default_payment_method_id first_user_event_at'),
    organization_id: state.organization.id,
    deleted_at: customer.deleted_at ?? null,
    avatar_url: `https://www.gravatar.com/avatar/${customer.id.replace(/-/g, '')}?d=404`,
  }
}

/** The subscription without its relations (as embedded in orders). */
function subscriptionBaseJson(subscription: SubscriptionRecord) {
  return {
    metadata: subscription.metadata,
    created_at: subscription.created_at,
    modified_at: subscription.modified_at,
    id: subscription.id,
    amount: subscription.amount,
    currency: subscription.currency,
    recurring_interval: subscription.recurring_interval,
    recurring_interval_count: 1,
    status: subscription.status,
    current_period_start: subscription.current_period_start,
    current_period_end: subscription.current_period_end,
    ...nulls(`current_meter_period_start current_meter_period_end trial_start trial_end paused_at
      resumes_at discount_id units customer_cancellation_reason customer_cancellation_comment`),
    cancel_at_period_end: subscription.cancel_at_period_end,
    canceled_at: subscription.canceled_at,
    started_at: subscription.started_at,
    ends_at: subscription.ends_at,
    ended_at: subscription.ended_at,
    past_due_at: subscription.past_due_at,
    pause_at_period_end: false,
    customer_id: subscription.customer_id,
    product_id: subscription.product_id,
    checkout_id: subscription.checkout_id,
  }
}

export function subscriptionJson(state: PolarState, subscription: SubscriptionRecord) {
  const product = state.product(subscription.product_id)
  return {
    ...subscriptionBaseJson(subscription),
    customer: customerJson(state, state.customer(subscription.customer_id)),
    product: productJson(state, product),
    discount: null,
    prices: [priceJson(product)],
    meters: [],
    pending_update: null,
  }
}

export function orderJson(state: PolarState, order: OrderRecord) {
  const product = state.product(order.product_id)
  const subscription = order.subscription_id
    ? state.subscriptions.get(order.subscription_id)
    : undefined
  const paid = order.status !== 'pending'
  return {
    id: order.id,
    created_at: order.created_at,
    modified_at: order.modified_at,
    status: order.status,
    paid,
    subtotal_amount: order.amount,
    discount_amount: 0,
    net_amount: order.amount,
    tax_amount: order.tax_amount,
    total_amount: order.amount + order.tax_amount,
    applied_balance_amount: 0,
    due_amount: paid ? 0 : order.amount + order.tax_amount,
    refunded_amount: order.refunded_amount,
    refunded_tax_amount: order.refunded_tax_amount,
    currency: order.currency,
    billing_reason: order.billing_reason,
    billing_name: order.billing_name,
    billing_address: order.billing_address,
    invoice_number: order.invoice_number,
    is_invoice_generated: order.is_invoice_generated,
    ...nulls('receipt_number units discount_id platform_fee_currency discount'),
    customer_id: order.customer_id,
    product_id: order.product_id,
    subscription_id: order.subscription_id,
    checkout_id: order.checkout_id,
    metadata: order.metadata,
    platform_fee_amount: 0,
    customer: customerJson(state, state.customer(order.customer_id)),
    product: { metadata: {}, ...productBase(state, product) },
    subscription: subscription ? subscriptionBaseJson(subscription) : null,
    items: [
      {
        created_at: order.created_at,
        modified_at: null,
        id: order.id.replace(/.{4}$/, 'a17e'),
        label: product.name,
        amount: order.amount,
        tax_amount: order.tax_amount,
        proration: false,
        product_price_id: product.price_id,
        start_timestamp: order.period_start,
        end_timestamp: order.period_end,
      },
    ],
    description: product.name,
    refundable_amount: order.amount - order.refunded_amount,
    refundable_tax_amount: order.tax_amount - order.refunded_tax_amount,
  }
}

export function checkoutJson(state: PolarState, checkout: CheckoutRecord, publicUrl: string) {
  const product = state.product(checkout.product_id)
  const products = checkout.product_ids.map((id) => state.product(id))
  return {
    id: checkout.id,
    created_at: checkout.created_at,
    modified_at: checkout.modified_at,
    payment_processor: 'stripe',
    status: checkout.status,
    client_secret: checkout.client_secret,
    url: `${publicUrl}/checkout/${checkout.client_secret}`,
    expires_at: checkout.expires_at,
    success_url: checkout.success_url,
    ...nulls(`return_url embed_origin units min_units max_units tax_amount tax_behavior
      active_trial_interval active_trial_interval_count trial_end discount_id customer_ip_address
      customer_billing_address customer_tax_id payment_method_type trial_interval
      trial_interval_count discount`),
    amount: product.amount,
    discount_amount: 0,
    net_amount: product.amount,
    total_amount: product.amount,
    currency: product.currency,
    allow_trial: true,
    organization_id: state.organization.id,
    product_id: product.id,
    product_price_id: product.price_id,
    allow_discount_codes: true,
    require_billing_address: false,
    is_discount_applicable: true,
    is_free_product_price: false,
    is_payment_required: true,
    is_payment_setup_required: true,
    is_payment_form_required: true,
    customer_id: checkout.customer_id,
    is_business_customer: false,
    customer_name: checkout.customer_name,
    customer_email: checkout.customer_email,
    customer_billing_name: checkout.customer_name,
    payment_processor_metadata: {},
    billing_address_fields: {
      country: 'required',
      state: 'disabled',
      city: 'disabled',
      postal_code: 'disabled',
      line1: 'disabled',
      line2: 'disabled',
    },
    metadata: checkout.metadata,
    external_customer_id: checkout.external_customer_id,
    products: products.map((p) => checkoutProductJson(state, p)),
    product: checkoutProductJson(state, product),
    product_price: priceJson(product),
    prices: Object.fromEntries(products.map((p) => [p.id, [priceJson(p)]])),
    subscription_id: checkout.subscription_id,
    attached_custom_fields: [],
    customer_metadata: checkout.customer_metadata,
  }
}

export function customerSessionJson(
  state: PolarState,
  session: CustomerSessionRecord,
  publicUrl: string,
) {
  return {
    created_at: session.created_at,
    modified_at: null,
    id: session.id,
    token: session.token,
    expires_at: session.expires_at,
    return_url: session.return_url,
    customer_portal_url: `${publicUrl}/portal/${session.token}`,
    customer_id: session.customer_id,
    customer: customerJson(state, state.customer(session.customer_id)),
  }
}

export function refundJson(state: PolarState, refund: RefundRecord) {
  return {
    created_at: refund.created_at,
    modified_at: null,
    id: refund.id,
    metadata: {},
    status: 'succeeded',
    reason: 'customer_request',
    amount: refund.amount,
    tax_amount: refund.tax_amount,
    currency: refund.currency,
    organization_id: state.organization.id,
    order_id: refund.order_id,
    subscription_id: refund.subscription_id,
    customer_id: refund.customer_id,
    revoke_benefits: false,
    dispute: null,
  }
}

export function listJson<T>(items: T[], page: number, limit: number) {
  const start = (page - 1) * limit
  return {
    items: items.slice(start, start + limit),
    pagination: {
      total_count: items.length,
      max_page: Math.max(1, Math.ceil(items.length / limit)),
    },
  }
}
