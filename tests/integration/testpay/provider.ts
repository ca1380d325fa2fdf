import { planById } from '../../../app/billing/plans.server'
import type { BillingProvider, ListedSubscription } from '../../../app/billing/provider'
import {
  answerWebhook,
  badSignature,
  readWebhookBody,
} from '../../../app/billing/webhooks/outcome.server'
import { getEnv } from '../../../app/env.server'
import { applySubscriptionEvent, recordPaymentEvent } from '../../../app/subscriptions/store.server'
import { testpaySettings } from './settings'

/**
 * A provider that exists only in the tests (an in-memory service and its adapter): a provider
 * needs nothing outside its folder but its registration (./register.ts) and its driver.
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

const setting = (name: keyof typeof testpaySettings.localDefaults) =>
  (getEnv() as unknown as Record<string, string>)[name]
const SECRET = testpaySettings.localDefaults.TESTPAY_WEBHOOK_SECRET

let next = 0
const checkouts = new Map<string, { userId: string; plan: string; paid: boolean }>()
const subscriptions = new Map<string, Subscription>()
/** Its customers' addresses, by customer id (an email change reaches them). */
const customers = new Map<string, string>()
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

/** Delivers the queued events to the app's webhook route, signed. */
export async function deliverTestpayEvents(appUrl: string) {
  for (const event of outbox.splice(0)) {
    const response = await fetch(`${appUrl}/api/webhooks/testpay`, {
      method: 'POST',
      headers: { 'testpay-signature': SECRET },
      body: JSON.stringify(event),
    })
    if (response.status !== 200) throw new Error(`testpay webhook answered ${response.status}`)
  }
}

export const testpayCustomerEmail = (userId: string) => customers.get(`tp_cus_${userId}`)

const fieldsOf = (subscription: Subscription) => ({
  provider: 'testpay',
  testpay_customer_id: subscription.customerId,
  testpay_subscription_id: subscription.id,
  plan_name: planById('testpay', subscription.plan)?.name ?? null,
  status: subscription.status,
  billing_cycle: 'month',
  cancel_at_period_end: subscription.cancelAtPeriodEnd ?? false,
  canceled_at: subscription.canceledAt,
})

export const testpayProvider: BillingProvider = {
  id: 'testpay',
  label: 'Testpay',
  formOrigins: [],
  originSettings: ['TESTPAY_API_URL'],
  checkoutDoor: (plan) => ({
    href: `${setting('TESTPAY_API_URL')}/start?plan=${plan.ids.testpay}`,
  }),
  async startCheckout(_asUser, user, plan) {
    const id = `tp_c_${++next}`
    checkouts.set(id, { userId: user.id, plan: plan.ids.testpay, paid: false })
    customers.set(`tp_cus_${user.id}`, user.email)
    return `${setting('TESTPAY_API_URL')}/checkout/${id}`
  },
  // Its columns come with its migration, not in the app's generated row type.
  async openPortal(row) {
    const customer = (row as Record<string, unknown>).testpay_customer_id
    if (typeof customer !== 'string') return { kind: 'no-subscription' }
    return { kind: 'url', url: `${setting('TESTPAY_API_URL')}/portal/${customer}` }
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
  async updateCustomerEmail(_row, userId, email) {
    if (customers.has(`tp_cus_${userId}`)) customers.set(`tp_cus_${userId}`, email.new)
  },
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
    summary: async (id) => ({
      plan: planById('testpay', checkouts.get(id)?.plan)?.name ?? null,
      amount: null,
      userId: null,
    }),
  },
  async handleWebhook(request) {
    const body = await readWebhookBody(request)
    if (body instanceof Response) return body
    if (request.headers.get('testpay-signature') !== setting('TESTPAY_WEBHOOK_SECRET'))
      return badSignature()
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
