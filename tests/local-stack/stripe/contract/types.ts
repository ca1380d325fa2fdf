/** The pinned API version's types of the objects the emulator serves, from stripe-node. */
import { loadSdkTypes, type SdkTypes } from '../../sdk-types/program'
import type { ValidateOptions } from '../../sdk-types/validate'

/** Fixture name (Stripe's `x-resourceId`, or `list`) → stripe-node type. */
export const STRIPE_TYPES = {
  'billing_portal.session': 'Stripe.BillingPortal.Session',
  'checkout.session': 'Stripe.Checkout.Session',
  customer: 'Stripe.Customer',
  event: 'Stripe.Event',
  invoice: 'Stripe.Invoice',
  invoice_payment: 'Stripe.InvoicePayment',
  item: 'Stripe.LineItem',
  line_item: 'Stripe.InvoiceLineItem',
  list: 'Stripe.ApiList<unknown>',
  payment_intent: 'Stripe.PaymentIntent',
  payment_method: 'Stripe.PaymentMethod',
  plan: 'Stripe.Plan',
  price: 'Stripe.Price',
  product: 'Stripe.Product',
  subscription: 'Stripe.Subscription',
  subscription_item: 'Stripe.SubscriptionItem',
} as const

export type ObjectKind = keyof typeof STRIPE_TYPES

const alias = (kind: string) => `T_${kind.replace(/\W/g, '_')}`

/** Wire forms: stripe-node turns decimal strings into `Decimal` objects after parsing. */
export const WIRE_OPTIONS: ValidateOptions = {
  stringTypes: ['Decimal'],
  partialUnder: ['previous_attributes'],
}

export interface StripeTypes extends SdkTypes {
  of(kind: ObjectKind): ReturnType<SdkTypes['get']>
}

export function loadStripeTypes(): StripeTypes {
  const lines = Object.entries(STRIPE_TYPES).map(
    ([kind, type]) => `export type ${alias(kind)} = ${type}`,
  )
  const types = loadSdkTypes(`import type Stripe from 'stripe'\n${lines.join('\n')}\n`)
  return { ...types, of: (kind) => types.get(alias(kind)) }
}
