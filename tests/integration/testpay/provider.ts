import type { BillingProvider, ListedSubscription } from '../../../app/billing/provider'
import { webhookAction } from '../../../app/billing/registry.server'
import {
  answerWebhook,
  badSignature,
  readWebhookBody,
} from '../../../app/billing/webhooks/outcome.server'
import { applySubscriptionEvent, recordPaymentEvent } from '../../../app/subscriptions/store.server'

/**
 * A third payment provider that exists only in the tests: an in-memory service and its
 * adapter, registered by the conformance suite alone. It proves a provider needs nothing
 * outside its own folder, its migration (./migration.sql) and a registry line. A paid checkout
 * is a subscription and its payment, shown on the billing page and in the payments CSV.
 */
interface Subscription {
  id: string
  customerId: string
  userId: string
  plan: string
  status: 'active' | 'canceled'
  createdAt: string
  canceledAt: string | null
  cancelAtPeriodEnd?: boolean
}

const SECRET = 'testpay-secret'
const HOSTED = 'https://pay.test'

let next = 0
const checkouts = new Map<string, { userId: string; plan: string; paid: boolean }>()
const subscriptions = new Map<string, Subscription>()
/** Events the service has not delivered yet (see `deliverTestpayEvents`). */
const outbox: { id: string; type: string; at: string; subscription: Subscription }[] = []

function emit(type: string, subscription: Subscription) {
  outbox.push({ id: `tp_evt_${++next}`, type, at: new Date().toISOString(), subscription })
}

/** The service's side of a paid checkout: a subscription, and its event queued. */
export function payTestpayCheckout(id: string) {
  const checkout = checkouts.get(id)
  if (!checkout || checkout.paid) throw new Error(`no open testpay checkout ${id}`)
  checkout.paid = true
  const subscription: Subscription = {
    id: `tp_sub_${++next}`,
    customerId: `tp_cus_${checkout.userId}`,
    userId: checkout.userId,
    plan: checkout.plan,
    status: 'active',
    createdAt: new Date().toISOString(),
    canceledAt: null,
  }
  subscriptions.set(subscription.id, subscription)
  emit('subscription.created', subscription)
  emit('payment.succeeded', subscription)
  return subscription
}

/** Delivers the queued events to the app's webhook through the registry, signed. */
export async function deliverTestpayEvents() {
  const action = webhookAction('testpay')
  for (const event of outbox.splice(0)) {
    const request = new Request('http://app.test/api/webhooks/testpay', {
      method: 'POST',
      headers: { 'testpay-signature': SECRET },
      body: JSON.stringify(event),
    })
    const response = await action({ request })
    if (response.status !== 200) throw new Error(`testpay webhook answered ${response.status}`)
  }
}

const fieldsOf = (subscription: Subscription) => ({
  provider: 'testpay',
  testpay_customer_id: subscription.customerId,
  testpay_subscription_id: subscription.id,
  plan_name: subscription.plan,
  status: subscription.status,
  billing_cycle: 'month',
  cancel_at_period_end: subscription.cancelAtPeriodEnd ?? false,
  canceled_at: subscription.canceledAt,
})

export const testpayProvider: BillingProvider = {
  id: 'testpay',
  label: 'Testpay',
  formOrigins: [HOSTED],
  checkoutDoor: (plan) => ({ href: `${HOSTED}/start?plan=${plan.key}` }),
  async startCheckout(_asUser, user, plan) {
    const id = `tp_c_${++next}`
    checkouts.set(id, { userId: user.id, plan: plan.name, paid: false })
    return `${HOSTED}/checkout/${id}`
  },
  // Its columns come with its migration, not in the app's generated row type.
  async openPortal(row) {
    const customer = (row as Record<string, unknown>).testpay_customer_id
    if (typeof customer !== 'string') return { kind: 'no-subscription' }
    return { kind: 'url', url: `${HOSTED}/portal/${customer}` }
  },
  async userSubscriptions(_row, userId) {
    return [...subscriptions.values()].filter((subscription) => subscription.userId === userId)
  },
  async scheduleCancel(id, cancel) {
    const subscription = subscriptions.get(id)!
    subscription.cancelAtPeriodEnd = cancel
    emit('subscription.updated', subscription)
    return { fields: fieldsOf(subscription), occurredAt: outbox.at(-1)!.at }
  },
  // It cannot end a subscription now, as some providers cannot: deletion schedules the end.
  ends: 'period-end',
  async expireCheckouts(_row, user) {
    for (const [id, checkout] of checkouts)
      if (checkout.userId === user.id && !checkout.paid) checkouts.delete(id)
  },
  async listSubscriptions(): Promise<ListedSubscription[]> {
    return [...subscriptions.values()].map((subscription) => ({
      userId: subscription.userId,
      subscriptionId: subscription.id,
      createdAt: subscription.createdAt,
      fields: fieldsOf(subscription),
    }))
  },
  // Its payments are not kept apart from its subscriptions: none to catch up.
  listPayments: async () => [],
  paymentLookup: () => null,
  checkout: {
    param: 'testpay_checkout',
    pattern: /^tp_c_\d+$/,
    status: async (id) => (checkouts.get(id)?.paid ? 'complete' : 'open'),
    summary: async (id) => ({ plan: checkouts.get(id)?.plan ?? null, amount: null, userId: null }),
  },
  async handleWebhook(request) {
    const body = await readWebhookBody(request)
    if (body instanceof Response) return body
    if (request.headers.get('testpay-signature') !== SECRET) return badSignature()
    const event = JSON.parse(new TextDecoder().decode(body)) as (typeof outbox)[number]
    const subscription = event.subscription
    // Only its first event names the user: the ledger finds the others' by the rules row of
    // its migration (the subscription's holder), with no change to the ledger functions.
    const userId = event.type === 'subscription.created' ? subscription.userId : null
    const ledgerEvent = {
      provider: 'testpay',
      id: event.id,
      type: event.type,
      occurredAt: event.at,
    }
    // Its payment names no user either: the ledger finds it by the subscription, as its rules say.
    if (event.type === 'payment.succeeded')
      return answerWebhook('testpay', event, () =>
        recordPaymentEvent(ledgerEvent, {
          provider: 'testpay',
          provider_payment_id: `tp_pay_${event.id}`,
          testpay_subscription_id: subscription.id,
          amount: 2900,
          currency: 'usd',
          status: 'paid',
          description: `${fieldsOf(subscription).plan_name} payment`,
          created_at: event.at,
        }),
      )
    return answerWebhook('testpay', event, () =>
      applySubscriptionEvent(ledgerEvent, userId, fieldsOf(subscription)),
    )
  },
}
