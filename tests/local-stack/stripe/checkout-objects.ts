/** The Checkout Session object, as `POST /v1/checkout/sessions` creates it, and its line items. */
import { randomId } from './http'
import type { CheckoutSessionObject, PriceObject } from './objects'
import type { Store } from './store'

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
