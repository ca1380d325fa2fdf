import type { Catalog } from '../catalog'
import type { ChargeObject, DisputeObject } from './charges'
import { noSuch, StripeApiError } from './http'
import {
  type CheckoutSessionObject,
  type CustomerObject,
  type InvoiceObject,
  type LineItemObject,
  makePrice,
  makeProduct,
  type Metadata,
  type PortalSessionObject,
  type PriceObject,
  type ProductObject,
  type StripeObject,
  type SubscriptionObject,
} from './objects'
import type {
  InvoicePaymentObject,
  PaymentIntentObject,
  PaymentMethodObject,
} from './payment-objects'

export interface StripeEvent {
  id: string
  object: 'event'
  api_version: string
  created: number
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> }
  livemode: false
  pending_webhooks: number
  request: { id: string | null; idempotency_key: string | null }
  type: string
}

/** Where an event stands with the endpoint; `not_sent`: created while it was disabled. */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'not_sent'

/** Data kept beside a checkout session: its line items (rendered on request) and subscription metadata. */
export interface CheckoutExtras {
  lineItems: LineItemObject[]
  subscriptionMetadata: Metadata
}

export const DEFAULT_PORTAL_CONFIGURATION = 'bpc_local_emulator_default'

export class Store {
  readonly products = new Map<string, ProductObject>()
  readonly prices = new Map<string, PriceObject>()
  readonly customers = new Map<string, CustomerObject>()
  readonly subscriptions = new Map<string, SubscriptionObject>()
  readonly invoices = new Map<string, InvoiceObject>()
  readonly paymentIntents = new Map<string, PaymentIntentObject>()
  readonly invoicePayments = new Map<string, InvoicePaymentObject>()
  readonly paymentMethods = new Map<string, PaymentMethodObject>()
  readonly charges = new Map<string, ChargeObject>()
  readonly disputes = new Map<string, DisputeObject>()
  readonly checkoutSessions = new Map<string, CheckoutSessionObject>()
  readonly checkoutExtras = new Map<string, CheckoutExtras>()
  readonly portalSessions = new Map<string, PortalSessionObject>()
  readonly events = new Map<string, StripeEvent>()
  readonly deliveryState = new Map<string, DeliveryState>()
  readonly idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>()
  /** Customers whose card on file declines (after a failed renewal, until they save a new one). */
  readonly decliningCards = new Set<string>()
  /** Portal sessions whose deep-link flow is done (they show the portal's homepage after it). */
  readonly completedPortalFlows = new Set<string>()
  /**
   * The account's settings that decide what the API accepts, as a new Stripe account has
   * them unless the emulator is told otherwise (`StripeEmulatorOptions`): Stripe Tax not
   * set up, and only the default customer portal configuration.
   */
  readonly account = {
    taxActive: false,
    portalConfigurations: new Set<string>([DEFAULT_PORTAL_CONFIGURATION]),
    businessUrl: null as string | null,
    /** Configurations whose `features.subscription_update` is off: no plan changes. */
    portalPlanChangesOff: new Set<string>(),
    /** Configurations whose plan changes offer only these prices (else every recurring one). */
    portalPrices: new Map<string, string[]>(),
  }
  private clockOffset = 0
  private invoiceSequence = 0

  constructor(readonly catalog: Catalog) {
    const created = this.now()
    for (const plan of catalog.plans) {
      const { productId, priceId } = plan.stripe
      this.products.set(productId, makeProduct(productId, plan, priceId, created))
      this.prices.set(priceId, makePrice(priceId, productId, plan, created))
    }
  }

  /** Emulated unix time in seconds; tests move it forward with `advanceClock`. */
  now() {
    return Math.floor(Date.now() / 1000) + this.clockOffset
  }

  advanceClock(seconds: number) {
    this.clockOffset += seconds
  }

  nextInvoiceNumber(customer: CustomerObject) {
    this.invoiceSequence += 1
    return `${customer.invoice_prefix as string}-${String(this.invoiceSequence).padStart(4, '0')}`
  }

  lookup(id: string): StripeObject | undefined {
    const maps: Map<string, StripeObject>[] = [
      this.customers,
      this.subscriptions,
      this.invoices,
      this.paymentIntents,
      this.invoicePayments,
      this.paymentMethods,
      this.charges,
      this.disputes,
      this.prices,
      this.products,
      this.checkoutSessions,
      this.portalSessions,
    ]
    for (const map of maps) {
      const found = map.get(id)
      if (found) return found
    }
    return undefined
  }

  customer(id: string, param = 'id') {
    return this.customers.get(id) ?? fail(noSuch('customer', id, param))
  }
  subscription(id: string, param = 'id') {
    return this.subscriptions.get(id) ?? fail(noSuch('subscription', id, param))
  }
  price(id: string, param = 'id') {
    return this.prices.get(id) ?? fail(noSuch('price', id, param))
  }
  invoice(id: string) {
    return this.invoices.get(id) ?? fail(noSuch('invoice', id))
  }
  paymentIntent(id: string) {
    return this.paymentIntents.get(id) ?? fail(noSuch('payment_intent', id))
  }
  paymentsOf(invoiceId: string) {
    return [...this.invoicePayments.values()]
      .filter((payment) => payment.invoice === invoiceId)
      .reverse()
  }
  checkoutSession(id: string) {
    return this.checkoutSessions.get(id) ?? fail(noSuch('checkout.session', id))
  }
  event(id: string) {
    return this.events.get(id) ?? fail(noSuch('event', id))
  }
}

function fail(error: StripeApiError): never {
  throw error
}
