/**
 * One of every object the emulator produces, from the flows run through the SDK, read back
 * with plain HTTP so that nothing is converted (stripe-node makes `Decimal`s).
 */
import type Stripe from 'stripe'

import type { StripeEmulator } from '../index'
import { API_KEY, createProSession } from '../test-support'
import type { ObjectKind } from './types'

type JsonObject = Record<string, unknown>

export interface Sample {
  kind: ObjectKind
  source: string
  value: JsonObject
}

class Collector {
  readonly samples: Sample[] = []
  constructor(private readonly emulator: StripeEmulator) {}

  add(kind: ObjectKind, source: string, value: unknown) {
    this.samples.push({ kind, source, value: value as JsonObject })
    return value as JsonObject
  }

  async fetch(path: string) {
    const response = await fetch(`${this.emulator.url}${path}`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    })
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as JsonObject
  }

  async get(kind: ObjectKind, path: string) {
    return this.add(kind, `GET ${path}`, await this.fetch(path))
  }

  /** A list's envelope, and each element as an object of `element`. */
  async list(path: string, element?: ObjectKind) {
    const page = await this.get('list', path)
    const data = page.data as JsonObject[]
    if (element)
      data.forEach((item, index) => this.add(element, `GET ${path} data[${index}]`, item))
    return data
  }
}

export async function collectSamples(stripe: Stripe, emulator: StripeEmulator) {
  const collect = new Collector(emulator)
  const [{ id: price }] = (await stripe.prices.list({ limit: 1 })).data
  await collect.get('price', `/v1/prices/${price}`)
  const { product } = await collect.fetch(`/v1/prices/${price}?expand[]=product`)
  collect.add('product', `GET /v1/prices/${price}?expand[]=product product`, product)

  const session = await createProSession(stripe)
  await collect.get('checkout.session', `/v1/checkout/sessions/${session.id}`)
  if (!(await emulator.completeCheckout(session.id)).ok) throw new Error('checkout failed')
  const completed = await collect.get(
    'checkout.session',
    `/v1/checkout/sessions/${session.id}?expand[]=line_items`,
  )
  const lineItems = collect.add('list', 'checkout.session.line_items', completed.line_items)
  collect.add('item', 'checkout.session.line_items.data[0]', firstOf(lineItems))
  await collect.get('customer', `/v1/customers/${completed.customer as string}`)
  const subscriptionId = completed.subscription as string
  const subscription = await collect.get('subscription', `/v1/subscriptions/${subscriptionId}`)
  const items = collect.add('list', 'subscription.items', subscription.items)
  const item = collect.add('subscription_item', 'subscription.items.data[0]', firstOf(items))
  collect.add('plan', 'subscription.items.data[0].plan', item.plan)
  await collectInvoice(collect, subscription.latest_invoice as string)

  await emulator.advanceSubscription(subscriptionId)
  await emulator.advanceSubscription(subscriptionId, { fail: true })
  const declined = await stripe.subscriptions.retrieve(subscriptionId)
  await collectInvoice(collect, declined.latest_invoice as string)
  // Recovery: a new card through the portal's payment-method flow, then the open invoice paid.
  const flow = await stripe.billingPortal.sessions.create({
    customer: completed.customer as string,
    return_url: 'http://localhost:5173/dashboard/settings/billing',
    flow_data: {
      type: 'payment_method_update',
      after_completion: {
        type: 'redirect',
        redirect: { return_url: 'http://localhost:5173/dashboard/settings/billing' },
      },
    },
  })
  collect.add('billing_portal.session', 'POST /v1/billing_portal/sessions (flow)', wireOf(flow))
  const saved = await fetch(flow.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ intent: 'update_payment_method', cardNumber: '4242424242424242' }),
    redirect: 'manual',
  })
  if (saved.status !== 303) throw new Error(`card update failed: ${saved.status}`)
  await stripe.invoices.pay(declined.latest_invoice as string)
  await collectInvoice(collect, declined.latest_invoice as string)
  await collect.get('customer', `/v1/customers/${completed.customer as string}`)
  await stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
  await stripe.subscriptions.cancel(subscriptionId)

  const portal = await stripe.billingPortal.sessions.create({
    customer: completed.customer as string,
    return_url: 'http://localhost:5173/dashboard/settings/billing',
  })
  collect.add('billing_portal.session', 'POST /v1/billing_portal/sessions', wireOf(portal))

  for (const [path, kind] of LISTS) await collect.list(path, kind)
  await emulator.idle()
  for (const event of emulator.events()) collectEvent(collect, event as unknown as JsonObject)
  return collect.samples
}

/** Lists whose elements are not collected otherwise. */
const LISTS: [string, ObjectKind | undefined][] = [
  ['/v1/customers', undefined],
  ['/v1/subscriptions?status=all', undefined],
  ['/v1/invoices', 'invoice'],
  ['/v1/prices', 'price'],
  ['/v1/checkout/sessions', 'checkout.session'],
  ['/v1/invoice_payments', 'invoice_payment'],
  ['/v1/events', undefined],
]

/** An invoice, its lines, its payments and their PaymentIntents. */
async function collectInvoice(collect: Collector, invoiceId: string) {
  const invoice = await collect.get('invoice', `/v1/invoices/${invoiceId}`)
  const lines = collect.add('list', 'invoice.lines', invoice.lines)
  collect.add('line_item', 'invoice.lines.data[0]', firstOf(lines))
  const payments = await collect.list(
    `/v1/invoice_payments?invoice=${invoiceId}`,
    'invoice_payment',
  )
  for (const payment of payments) {
    const intent = (payment.payment as JsonObject).payment_intent as string
    await collect.get('payment_intent', `/v1/payment_intents/${intent}`)
  }
  // The card of a paid one, as the app reads it: expanded through its PaymentIntent.
  const expand = 'expand[]=data.payment.payment_intent.payment_method'
  const paid = await collect.get(
    'list',
    `/v1/invoice_payments?invoice=${invoiceId}&status=paid&${expand}`,
  )
  for (const payment of paid.data as JsonObject[]) {
    const intent = (payment.payment as JsonObject).payment_intent as JsonObject
    collect.add('payment_method', `${invoiceId}'s paid PaymentIntent`, intent.payment_method)
  }
}

/** The webhook event, and the object it carries as an object of its own type. */
function collectEvent(collect: Collector, event: JsonObject) {
  const source = `event ${event.type as string}`
  collect.add('event', source, event)
  const object = (event.data as JsonObject).object as JsonObject
  collect.add(object.object as ObjectKind, `${source} data.object`, object)
}

function firstOf(list: JsonObject) {
  const [first] = list.data as JsonObject[]
  if (!first) throw new Error('empty list')
  return first
}

/** An SDK result without its non-JSON extras (`lastResponse`), as the wire had it. */
function wireOf(value: object): JsonObject {
  return JSON.parse(JSON.stringify(value)) as JsonObject
}
