/** The Checkout Session object, as `POST /v1/checkout/sessions` creates it, and its line items. */
import { randomId } from './http'
import { type CheckoutSessionObject, nulls, type PriceObject } from './objects'
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
