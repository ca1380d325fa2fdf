import { checkoutJson, refundJson } from './checkout-objects'
import { customerJson, orderJson, subscriptionJson } from './objects'
import { now, type PolarState } from './state'
import type {
  CheckoutRecord,
  CustomerRecord,
  OrderRecord,
  RefundRecord,
  SubscriptionRecord,
} from './types'
import type { WebhookDispatcher } from './webhooks'

/** What the flows need: the state, the webhook queue and the emulator's settings. */
export class EmulatorContext {
  readonly timers = new Set<NodeJS.Timeout>()
  /** API requests received, by `METHOD /path` (faults and refusals included). */
  readonly apiCalls = new Map<string, number>()

  constructor(
    readonly state: PolarState,
    readonly webhooks: WebhookDispatcher,
    readonly publicUrl: string,
    readonly invoiceDelayMs: number,
  ) {}

  /** Runs `fn` after `ms`, unless the emulator is closed first. */
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

  // Each emit serializes the object as it is now, like Polar's webhook payload snapshots.
  emitCheckout(type: string, checkout: CheckoutRecord) {
    return this.webhooks.enqueue(type, checkoutJson(this.state, checkout, this.publicUrl))
  }

  emitCustomer(type: string, customer: CustomerRecord) {
    return this.webhooks.enqueue(type, customerJson(this.state, customer))
  }

  emitSubscription(type: string, subscription: SubscriptionRecord) {
    return this.webhooks.enqueue(type, subscriptionJson(this.state, subscription))
  }

  emitOrder(type: string, order: OrderRecord) {
    return this.webhooks.enqueue(type, orderJson(this.state, order))
  }

  emitRefund(type: string, refund: RefundRecord) {
    return this.webhooks.enqueue(type, refundJson(this.state, refund))
  }
}
