/** Since API version basil an invoice's PaymentIntent is reached through its InvoicePayment. */
import { randomId } from './http'
import { type InvoiceObject, nulls } from './objects'
import type { Store } from './store'

export interface PaymentIntentObject {
  id: string
  object: 'payment_intent'
  amount: number
  amount_received: number
  status: 'requires_payment_method' | 'succeeded' | 'canceled'
  last_payment_error: Record<string, unknown> | null
  latest_charge: string | null
  payment_method: string | null
  [key: string]: unknown
}

export interface InvoicePaymentObject {
  id: string
  object: 'invoice_payment'
  amount_paid: number | null
  amount_requested: number
  created: number
  invoice: string
  is_default: boolean
  payment: { payment_intent: string; type: 'payment_intent' }
  status: 'open' | 'paid' | 'canceled'
  status_transitions: { canceled_at: number | null; paid_at: number | null }
  [key: string]: unknown
}

export interface PaymentMethodObject {
  id: string
  object: 'payment_method'
  card: { brand: string; last4: string; [key: string]: unknown }
  [key: string]: unknown
}

const BRANDS: [RegExp, string][] = [
  [/^4/, 'visa'],
  [/^(5[1-5]|2[2-7])/, 'mastercard'],
  [/^3[47]/, 'amex'],
]

/** The card PaymentMethod of a card typed on a hosted page, stored for `expand[]`. */
export function saveCard(store: Store, number: string, customer: string) {
  const digits = number.replace(/[\s-]/g, '')
  const brand = BRANDS.find(([first]) => first.test(digits))?.[1] ?? 'unknown'
  const created = store.now()
  const method: PaymentMethodObject = {
    id: randomId('pm', 24),
    object: 'payment_method',
    allow_redisplay: 'unspecified',
    billing_details: {
      address: nulls('city country line1 line2 postal_code state'),
      ...nulls('email name phone tax_id'),
    },
    card: {
      brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
      country: 'US',
      display_brand: brand,
      exp_month: 12,
      exp_year: new Date(created * 1000).getUTCFullYear() + 3,
      fingerprint: randomId('fp', 16).slice(3),
      funding: 'credit',
      generated_from: null,
      last4: digits.slice(-4),
      networks: { available: [brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created,
    customer,
    customer_account: null,
    livemode: false,
    metadata: {},
    type: 'card',
  }
  store.paymentMethods.set(method.id, method)
  return method.id
}

/** The PaymentIntent Stripe creates when it finalizes an invoice that has an amount due. */
export function makePaymentIntent(invoice: InvoiceObject, now: number): PaymentIntentObject {
  const id = randomId('pi')
  return {
    id,
    object: 'payment_intent',
    last_payment_error: null,
    latest_charge: null,
    payment_method: null,
    ...nulls(`allowed_payment_method_types application application_fee_amount
      automatic_payment_methods canceled_at cancellation_reason customer_account
      excluded_payment_method_types managed_payments next_action
      on_behalf_of payment_method_configuration_details payment_record processing
      receipt_email review shipping source statement_descriptor statement_descriptor_suffix
      transfer_data transfer_group`),
    amount: invoice.amount_due,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    capture_method: 'automatic',
    client_secret: `${id}_secret_${randomId('x').slice(2)}`,
    confirmation_method: 'automatic',
    created: now,
    currency: invoice.currency,
    customer: invoice.customer,
    description:
      invoice.billing_reason === 'subscription_create'
        ? 'Subscription creation'
        : 'Subscription update',
    livemode: false,
    metadata: {},
    payment_method_options: {
      card: {
        ...nulls('installments mandate_options network'),
        request_three_d_secure: 'automatic',
      },
    },
    payment_method_types: ['card'],
    setup_future_usage: 'off_session',
    status: 'requires_payment_method',
  }
}

/** The default InvoicePayment of a finalized invoice, open until its PaymentIntent succeeds. */
export function makeInvoicePayment(
  invoice: InvoiceObject,
  paymentIntent: PaymentIntentObject,
  now: number,
): InvoicePaymentObject {
  return {
    id: randomId('inpay'),
    object: 'invoice_payment',
    amount_paid: null,
    amount_requested: invoice.amount_due,
    created: now,
    currency: invoice.currency,
    invoice: invoice.id,
    is_default: true,
    livemode: false,
    payment: { payment_intent: paymentIntent.id, type: 'payment_intent' },
    status: 'open',
    status_transitions: { canceled_at: null, paid_at: null },
  }
}

/** A successful charge of the customer's card: the intent succeeds and the payment is paid. */
export function recordSuccess(
  intent: PaymentIntentObject,
  payment: InvoicePaymentObject,
  paymentMethod: string,
  now: number,
) {
  Object.assign(intent, {
    status: 'succeeded',
    amount_received: intent.amount,
    latest_charge: randomId('ch'),
    payment_method: paymentMethod,
    last_payment_error: null,
  })
  Object.assign(payment, {
    status: 'paid',
    amount_paid: intent.amount,
    status_transitions: { canceled_at: null, paid_at: now },
  })
}

/** A declined charge: the intent waits for a new payment method, the payment stays open. */
export function recordDecline(intent: PaymentIntentObject) {
  Object.assign(intent, {
    status: 'requires_payment_method',
    payment_method: null,
    last_payment_error: {
      charge: randomId('ch'),
      code: 'card_declined',
      decline_code: 'generic_decline',
      doc_url: 'https://stripe.com/docs/error-codes/card-declined',
      message: 'Your card was declined.',
      type: 'card_error',
    },
  })
}
