import { checkoutProductJson, customerJson, priceJson } from './objects'
import type { PolarState } from './state'
import type { CheckoutRecord, CustomerSessionRecord, RefundRecord } from './types'

/** Wire objects for checkouts, customer sessions, refunds and lists (see objects.ts). */

export function checkoutJson(state: PolarState, checkout: CheckoutRecord, publicUrl: string) {
  const product = state.product(checkout.product_id)
  const products = checkout.product_ids.map((id) => state.product(id))
  return {
    id: checkout.id,
    created_at: checkout.created_at,
    modified_at: checkout.modified_at,
    custom_field_data: {},
    payment_processor: 'stripe',
    status: checkout.status,
    client_secret: checkout.client_secret,
    url: `${publicUrl}/checkout/${checkout.client_secret}`,
    expires_at: checkout.expires_at,
    success_url: checkout.success_url,
    return_url: checkout.return_url,
    embed_origin: null,
    amount: product.amount,
    seats: null,
    min_seats: null,
    max_seats: null,
    units: null,
    min_units: null,
    max_units: null,
    discount_amount: 0,
    net_amount: product.amount,
    tax_amount: null,
    tax_behavior: null,
    total_amount: product.amount,
    currency: product.currency,
    allow_trial: true,
    active_trial_interval: null,
    active_trial_interval_count: null,
    trial_end: null,
    organization_id: state.organization.id,
    product_id: product.id,
    product_price_id: product.price_id,
    discount_id: null,
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
    customer_ip_address: null,
    customer_billing_name: checkout.customer_name,
    customer_billing_address: null,
    customer_tax_id: null,
    locale: null,
    payment_method_type: null,
    payment_processor_metadata: {},
    billing_address_fields: {
      country: 'required',
      state: 'disabled',
      city: 'disabled',
      postal_code: 'disabled',
      line1: 'disabled',
      line2: 'disabled',
    },
    trial_interval: null,
    trial_interval_count: null,
    metadata: checkout.metadata,
    external_customer_id: checkout.external_customer_id,
    products: products.map((p) => checkoutProductJson(state, p)),
    product: checkoutProductJson(state, product),
    product_price: priceJson(product),
    prices: Object.fromEntries(products.map((p) => [p.id, [priceJson(p)]])),
    discount: null,
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
    reason: refund.reason,
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

/** Polar's list envelope. */
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
