import { createHash, randomBytes, randomUUID } from 'node:crypto'

import type { Catalog } from '../catalog'
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

/** The organization every seeded product belongs to. */
export const LOCAL_ORGANIZATION_ID = '5b0d3f4e-7c1a-4c4e-9f0a-000000000001'

let clockOffsetMs = 0

/**
 * Moves the time Polar writes (objects, event payloads) by `ms` from this machine's clock,
 * as for a server whose clock differs from Polar's. Signing times are not moved: a
 * signature more than 5 minutes off is refused by design.
 */
export function setClockOffset(ms: number) {
  clockOffsetMs = ms
}

/** Current time as Polar writes it: ISO 8601 with a `Z` offset. */
export function now() {
  return new Date(Date.now() + clockOffsetMs).toISOString()
}

/** Adds one billing interval to an ISO date. */
export function addInterval(iso: string, interval: 'month' | 'year') {
  const date = new Date(iso)
  if (interval === 'year') date.setUTCFullYear(date.getUTCFullYear() + 1)
  else date.setUTCMonth(date.getUTCMonth() + 1)
  return date.toISOString()
}

/** A stable UUID derived from a name, so price ids survive restarts. */
function stableUuid(name: string) {
  const hex = createHash('sha1').update(name).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/** Random token with Polar's prefixes (`polar_c_`, `polar_cst_`). */
export function token(prefix: string) {
  return `${prefix}${randomBytes(24).toString('base64url')}`
}

/** Everything the emulator knows, in memory. */
export class PolarState {
  readonly organization: OrganizationRecord
  readonly products = new Map<string, ProductRecord>()
  readonly customers = new Map<string, CustomerRecord>()
  readonly checkouts = new Map<string, CheckoutRecord>()
  readonly subscriptions = new Map<string, SubscriptionRecord>()
  readonly orders = new Map<string, OrderRecord>()
  readonly refunds = new Map<string, RefundRecord>()
  readonly sessions = new Map<string, CustomerSessionRecord>()
  /**
   * The sales tax Polar (the merchant of record) adds to an order, in percent of its net
   * amount, by the billing address's country; none unless a test sets one.
   */
  readonly taxRates = new Map<string, number>()
  private invoiceCounter = 0

  constructor(catalog: Catalog) {
    const createdAt = '2025-01-01T00:00:00.000Z'
    this.organization = {
      id: LOCAL_ORGANIZATION_ID,
      name: 'Local Dev Org',
      slug: 'local-dev',
      created_at: createdAt,
      // Polar's default: one billable subscription per customer.
      subscription_settings: { allow_multiple_subscriptions: false },
    }
    for (const plan of catalog.plans) {
      const id = plan.polar.productId
      this.products.set(id, {
        id,
        price_id: stableUuid(`polar-price:${id}`),
        name: plan.name,
        description: plan.description,
        amount: plan.amount,
        currency: plan.currency,
        recurring_interval: plan.interval,
        created_at: createdAt,
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
  liveCustomers() {
    return [...this.customers.values()].filter((c) => !c.deleted_at)
  }

  liveCustomer(id: string) {
    const customer = this.customers.get(id)
    return customer?.deleted_at ? undefined : customer
  }

  customerByExternalId(externalId: string) {
    return this.liveCustomers().find((c) => c.external_id === externalId)
  }

  customerByEmail(email: string) {
    const wanted = email.toLowerCase()
    return this.liveCustomers().find((c) => c.email.toLowerCase() === wanted)
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
