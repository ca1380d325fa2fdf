import { createHash, randomBytes, randomUUID } from 'node:crypto'

import type { Catalog } from '../catalog'
import { checkoutJson, customerJson, orderJson, refundJson, subscriptionJson } from './objects'
import type {
  CheckoutRecord,
  CustomerRecord,
  CustomerSessionRecord,
  OrderRecord,
  OrganizationRecord,
  ProductRecord,
  RefundRecord,
  SubscriptionRecord,
} from './types'
import type { WebhookDispatcher } from './webhooks'

let clockOffsetMs = 0

/** Moves the time Polar writes by `ms`, as for a server whose clock differs (not signing times). */
export function setClockOffset(ms: number) {
  clockOffsetMs = ms
}

export function now() {
  return new Date(Date.now() + clockOffsetMs).toISOString()
}

export function addInterval(iso: string, interval: 'month' | 'year') {
  const date = new Date(iso)
  if (interval === 'year') date.setUTCFullYear(date.getUTCFullYear() + 1)
  else date.setUTCMonth(date.getUTCMonth() + 1)
  return date.toISOString()
}

export function token(prefix: string) {
  return `${prefix}${randomBytes(24).toString('base64url')}`
}

export class PolarState {
  readonly organization: OrganizationRecord = {
    id: '5b0d3f4e-7c1a-4c4e-9f0a-000000000001',
    name: 'Local Dev Org',
    // Polar's default: one billable subscription per customer.
    subscription_settings: { allow_multiple_subscriptions: false },
  }
  readonly products = new Map<string, ProductRecord>()
  readonly customers = new Map<string, CustomerRecord>()
  readonly checkouts = new Map<string, CheckoutRecord>()
  readonly subscriptions = new Map<string, SubscriptionRecord>()
  readonly orders = new Map<string, OrderRecord>()
  readonly sessions = new Map<string, CustomerSessionRecord>()
  /** The sales tax Polar adds to an order, in percent of its net amount, by billing country. */
  readonly taxRates = new Map<string, number>()
  private invoiceCounter = 0

  constructor(catalog: Catalog) {
    for (const plan of catalog.plans) {
      const id = plan.polar.productId
      // A price id derived from the product's, so it survives restarts.
      const hex = createHash('sha1').update(`polar-price:${id}`).digest('hex')
      this.products.set(id, {
        id,
        price_id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`,
        name: plan.name,
        description: plan.description,
        amount: plan.amount,
        currency: plan.currency,
        recurring_interval: plan.interval,
        created_at: '2025-01-01T00:00:00.000Z',
      })
    }
  }

  newId() {
    return randomUUID()
  }

  nextInvoiceNumber() {
    this.invoiceCounter += 1
    return `LOCAL-${String(this.invoiceCounter).padStart(4, '0')}`
  }

  checkoutByKey(key: string) {
    return (
      this.checkouts.get(key) ?? [...this.checkouts.values()].find((c) => c.client_secret === key)
    )
  }

  /** Customers not deleted: Polar finds no other by id, external id or email. */
  liveCustomer(id: string) {
    const customer = this.customers.get(id)
    return customer?.deleted_at ? undefined : customer
  }

  customerByExternalId(externalId: string) {
    return [...this.customers.values()].find((c) => !c.deleted_at && c.external_id === externalId)
  }

  customerByEmail(email: string) {
    const wanted = email.toLowerCase()
    return [...this.customers.values()].find(
      (c) => !c.deleted_at && c.email.toLowerCase() === wanted,
    )
  }

  sessionByToken(value: string) {
    const session = [...this.sessions.values()].find((s) => s.token === value)
    if (!session || Date.parse(session.expires_at) < Date.now()) return undefined
    return session
  }

  subscriptionsOf(customerId: string) {
    return [...this.subscriptions.values()].filter((s) => s.customer_id === customerId)
  }

  ordersOf(subscriptionId: string) {
    return [...this.orders.values()].filter((o) => o.subscription_id === subscriptionId)
  }

  product(id: string) {
    const product = this.products.get(id)
    if (!product) throw new Error(`Unknown product ${id}`)
    return product
  }

  customer(id: string) {
    const customer = this.customers.get(id)
    if (!customer) throw new Error(`Unknown customer ${id}`)
    return customer
  }
}

export class EmulatorContext {
  private readonly timers = new Set<NodeJS.Timeout>()
  /** API requests received, by `METHOD /path` (faults and refusals included). */
  readonly apiCalls = new Map<string, number>()

  constructor(
    readonly state: PolarState,
    readonly webhooks: WebhookDispatcher,
    readonly publicUrl: string,
    readonly invoiceDelayMs: number,
  ) {}

  later(ms: number, fn: () => void) {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      fn()
    }, ms)
    this.timers.add(timer)
  }

  clearTimers() {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }

  touch(record: { modified_at: string | null }) {
    record.modified_at = now()
  }

  // Each event serializes the record as it is now, like Polar's webhook payload snapshots.
  private send(kind: string, events: string[], json: () => unknown) {
    for (const event of events) this.webhooks.enqueue(`${kind}.${event}`, json())
  }

  emitCheckout(checkout: CheckoutRecord, ...events: string[]) {
    this.send('checkout', events, () => checkoutJson(this.state, checkout, this.publicUrl))
  }

  emitCustomer(customer: CustomerRecord, ...events: string[]) {
    this.send('customer', events, () => customerJson(this.state, customer))
  }

  emitSubscription(subscription: SubscriptionRecord, ...events: string[]) {
    this.send('subscription', events, () => subscriptionJson(this.state, subscription))
  }

  emitOrder(order: OrderRecord, ...events: string[]) {
    this.send('order', events, () => orderJson(this.state, order))
  }

  emitRefund(refund: RefundRecord) {
    this.webhooks.enqueue('refund.created', refundJson(this.state, refund))
  }
}
