import Stripe from 'stripe'

import { getEnv } from '~/env.server'
import { formatMoney } from '~/lib/pages/format'
import type { SubscriptionRow } from '~/subscriptions/types'

import { getPlans, planById } from '../plans.server'
import type { BillingProvider, ListedPayment, ListedSubscription } from '../provider'
import { createStripeCheckout } from './checkout.server'
import { getStripe } from './client.server'
import { StripeSubscriptionSchema, subscriptionFields, subscriptionUserId } from './events'
import { fetchHostedInvoiceUrl, fetchInvoicePaymentIntent } from './invoice.server'
import { applyStripeEvent, handleStripeWebhook, stripePlanName } from './webhook.server'

const billingPage = () => `${getEnv().SITE_URL}/dashboard/settings/billing`

/** The events `applyStripeEvent` applies (docs/stripe.md), which its endpoint must send. */
const EVENTS = [
  ...['created', 'updated', 'deleted'].map((change) => `customer.subscription.${change}`),
  ...['paid', 'payment_succeeded', 'payment_failed'].map((change) => `invoice.${change}`),
  ...['refunded', 'dispute.created', 'dispute.closed'].map((change) => `charge.${change}`),
]

const EVENTS_KEPT_MS = 30 * 86_400_000

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

/** Each subscription that a subscription event since `since` names, as it is now. */
async function* named(since: Date) {
  const seen = new Set<string>()
  const types = ['created', 'updated', 'deleted'].map((t) => `customer.subscription.${t}` as const)
  const created = { gte: seconds(since) }
  for await (const event of getStripe().events.list({ types, created, limit: 100 })) {
    const { id } = event.data.object as { id: string }
    if (!seen.has(id)) yield await getStripe().subscriptions.retrieve(seen.add(id) && id)
  }
}

/** The user's customers: the row's, and those its checkouts made (tagged with the user id). */
async function userCustomers(row: SubscriptionRow | null, userId: string, email: string) {
  const listed = await getStripe().customers.list({ email, limit: 100 })
  const ids = new Set(listed.data.filter((c) => c.metadata.user_id === userId).map((c) => c.id))
  if (row?.stripe_customer_id) ids.add(row.stripe_customer_id)
  return ids
}

/** A subscription as Stripe answered a change: its row fields, at Stripe's clock (the answer's Date). */
function answerOf(answer: Stripe.Response<Stripe.Subscription>) {
  const subscription = StripeSubscriptionSchema.parse(answer)
  return {
    fields: subscriptionFields(subscription, stripePlanName(subscription)),
    occurredAt: new Date(answer.lastResponse.headers.date ?? Date.now()).toISOString(),
  }
}

export const stripeProvider: BillingProvider = {
  id: 'stripe',
  label: 'by card',
  // Stripe Checkout and the Stripe billing portal, on Stripe's domains or the account's own.
  formOrigins: ['https://checkout.stripe.com', 'https://billing.stripe.com'],
  originSettings: ['STRIPE_API_URL', 'STRIPE_CUSTOM_DOMAIN'],
  async preflight() {
    const id = getEnv().STRIPE_PORTAL_CONFIGURATION_ID
    const { data } = await getStripe().webhookEndpoints.list({ limit: 100 })
    // A version is `<date>.<release>`: the pinned one's release, at its date or a later one.
    const [pinned, release] = Stripe.API_VERSION.split('.')
    const portal = getStripe().billingPortal.configurations
    // Stripe leaves out the plans a configuration offers unless they are expanded.
    const expand = ['features.subscription_update.products']
    const configuration = id
      ? await portal.retrieve(id, { expand })
      : (await portal.list({ is_default: true, limit: 1, expand: [`data.${expand[0]}`] })).data[0]
    const update = configuration?.features.subscription_update
    const prices = new Set(update?.products?.flatMap((product) => product.prices))
    const absent = getPlans().filter((plan) => !prices.has(plan.ids.stripe))
    const named = `portal configuration ${configuration?.id}`
    return {
      paths: ['/api/webhooks/stripe', '/api/webhooks/providera'],
      events: EVENTS,
      endpoints: data.map((endpoint) => ({
        ...endpoint,
        events: endpoint.enabled_events,
        faults: [
          endpoint.status !== 'enabled' && `is ${endpoint.status}`,
          !(endpoint.api_version?.endsWith(`.${release}`) && endpoint.api_version >= pinned) &&
            `sends API version ${endpoint.api_version}, not ${release} (${Stripe.API_VERSION} or later)`,
        ],
      })),
      faults: [
        !update?.enabled && `${named} does not let customers change plans`,
        !!update?.enabled &&
          absent.length > 0 &&
          `${named} does not offer ${absent.map((plan) => plan.name).join(', ')}`,
      ],
    }
  },
  // A plain form: POST /api/checkout_sessions answers 303 to Stripe, so it works without JavaScript.
  checkoutDoor: (plan) => ({
    post: '/api/checkout_sessions',
    fields: { price_id: plan.ids.stripe },
  }),
  startCheckout: (asUser, user, plan) => createStripeCheckout(asUser, user, plan.ids.stripe),
  // The customer from the user's row, never from input; `paymentMethod` opens the card form
  // (a saved card comes back saying so), `plan` the confirmation of a change to its price.
  async openPortal(row, _userId, { paymentMethod, plan }) {
    if (!row.stripe_customer_id) return { kind: 'no-subscription' }
    const { STRIPE_PORTAL_CONFIGURATION_ID: configuration } = getEnv()
    const subscription = plan && row.stripe_subscription_id
    const item =
      subscription && (await getStripe().subscriptions.retrieve(subscription)).items.data[0]
    const confirm = item && { subscription, items: [{ id: item.id, price: plan.ids.stripe }] }
    const done = `${billingPage()}?${confirm ? `changed=${plan.key}` : 'card=saved'}`
    const session = await getStripe().billingPortal.sessions.create({
      customer: row.stripe_customer_id,
      return_url: billingPage(),
      ...(configuration ? { configuration } : {}),
      ...((paymentMethod || confirm) && {
        flow_data: {
          type: confirm ? 'subscription_update_confirm' : 'payment_method_update',
          subscription_update_confirm: confirm || undefined,
          after_completion: { type: 'redirect', redirect: { return_url: done } },
        },
      }),
    })
    return { kind: 'url', url: session.url }
  },
  // Every status, of the customer on the user's row.
  async userSubscriptions(row) {
    const customer = row?.stripe_customer_id
    if (!customer) return []
    return (await getStripe().subscriptions.list({ customer, status: 'all', limit: 100 })).data
  },
  scheduleCancel: async (id, cancel) =>
    answerOf(await getStripe().subscriptions.update(id, { cancel_at_period_end: cancel })),
  // The card on file pays the latest invoice; a decline is Stripe's 402 card error.
  async payOpenInvoice(id) {
    const { latest_invoice: invoice } = await getStripe().subscriptions.retrieve(id)
    await getStripe().invoices.pay(invoice as string)
    return answerOf(await getStripe().subscriptions.retrieve(id))
  },
  ends: 'now',
  async cancelNow(id) {
    try {
      await getStripe().subscriptions.cancel(id)
    } catch (error) {
      if (!(error instanceof Stripe.errors.StripeError && error.code === 'resource_missing'))
        throw error
    }
  },
  // A session completed meanwhile (400) made a subscription, which deletion then ends.
  async expireCheckouts(row, user) {
    const sessions = getStripe().checkout.sessions
    for (const customer of await userCustomers(row, user.id, user.email))
      for await (const { id } of sessions.list({ customer, status: 'open', limit: 100 }))
        await sessions.expire(id).catch((error: unknown) => {
          if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error
        })
  },
  async updateCustomerEmail(row, userId, email) {
    for (const id of await userCustomers(row, userId, email.old))
      await getStripe().customers.update(id, { email: email.new })
  },
  // Canceled ones included; the user its metadata names (else reconciliation finds the holder).
  async listSubscriptions(since) {
    const listed: ListedSubscription[] = []
    // Since a time within the 30 days Stripe keeps events: the subscriptions they name.
    const all = !since || Date.now() - since.getTime() > EVENTS_KEPT_MS
    const items = all ? getStripe().subscriptions.list({ status: 'all', limit: 100 }) : named(since)
    for await (const item of items) {
      const subscription = StripeSubscriptionSchema.parse(item)
      listed.push({
        userId: subscriptionUserId(subscription),
        subscriptionId: subscription.id,
        createdAt: new Date(item.created * 1000).toISOString(),
        fields: subscriptionFields(subscription, stripePlanName(subscription), {
          deleted: subscription.status === 'canceled',
        }),
      })
    }
    return listed
  },
  async listPayments(since) {
    const paid: ListedPayment[] = []
    const created = since && { gte: seconds(since) }
    for await (const object of getStripe().invoices.list({ status: 'paid', created, limit: 100 })) {
      const id = `reconcile:${object.id}`
      const event = { id, type: 'invoice.payment_succeeded', data: { object } }
      const record = () =>
        applyStripeEvent({ ...event, created: seconds(new Date()) } as Stripe.Event)
      paid.push({ id: object.id!, record })
    }
    return paid
  },
  paymentLookup(payment, timeoutMs) {
    const invoiceId = payment.provider_payment_id
    const url = !payment.invoice_url
    // A failed invoice was not paid: there is no PaymentIntent that paid it to look up.
    const paymentIntent =
      !payment.provider_charge_id && payment.amount > 0 && payment.status !== 'failed'
    if (!url && !paymentIntent) return null
    const options = { timeoutMs }
    return async () => {
      const [invoice_url, provider_charge_id] = await Promise.all([
        url ? fetchHostedInvoiceUrl(invoiceId, options) : null,
        paymentIntent ? fetchInvoicePaymentIntent(invoiceId, options) : null,
      ])
      return { invoice_url, provider_charge_id: provider_charge_id?.id ?? null }
    }
  },
  checkout: {
    param: 'session_id',
    pattern: /^cs_[A-Za-z0-9_]{1,200}$/,
    async status(id) {
      const { status } = await getStripe().checkout.sessions.retrieve(id)
      return status === 'complete' ? 'complete' : status === 'open' ? 'open' : 'failed'
    },
    async summary(id) {
      const session = await getStripe().checkout.sessions.retrieve(id, { expand: ['line_items'] })
      const price = session.line_items?.data[0]?.price
      const plan = planById('stripe', price?.id)
      const interval = price?.recurring?.interval ?? plan?.interval
      const amount =
        session.amount_total !== null && session.currency
          ? `${formatMoney(session.amount_total, session.currency)}${interval ? ` per ${interval}` : ''}`
          : null
      return { plan: plan?.name ?? null, amount, userId: session.metadata?.user_id }
    },
  },
  handleWebhook: handleStripeWebhook,
}
