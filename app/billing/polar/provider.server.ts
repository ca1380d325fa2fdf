import { getEnv } from '~/env.server'
import { formatMoney } from '~/lib/pages/format'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'

import { planById } from '../plans.server'
import type { BillingProvider, ListedPayment } from '../provider'
import { polarCheckoutPath } from './checkout.server'
import { describePolarServers, getPolar } from './client.server'
import { polarSubscriptionFields, PolarSubscriptionSchema, polarUserLink } from './events'
import { lookUpOrderInvoiceUrl } from './invoice.server'
import { changePolarPlan, polarPlanChangeOffer } from './plan-change.server'
import { applyPolarEvent, handlePolarWebhook } from './webhook.server'

const PAGE_SIZE = 100

export const polarProvider: BillingProvider = {
  id: 'polar',
  label: 'with Polar',
  // Polar's hosted checkout and customer portal (sandbox.polar.sh, polar.sh, buy.polar.sh).
  formOrigins: ['https://polar.sh', 'https://*.polar.sh'],
  originSettings: ['POLAR_API_URL'],
  async preflight() {
    const { items } = await getPolar('invoices').webhooks.listWebhookEndpoints({ limit: 100 })
    const subscription = ['created', 'updated', 'active', 'canceled', 'uncanceled', 'revoked']
    return {
      paths: ['/api/webhooks/polar', '/api/webhooks/providerb'],
      events: [
        ...subscription.map((change) => `subscription.${change}`),
        ...['created', 'paid', 'updated', 'refunded'].map((change) => `order.${change}`),
      ],
      endpoints: items.map((endpoint) => ({
        ...endpoint,
        faults: [
          !endpoint.enabled && 'is disabled',
          endpoint.format !== 'raw' && `sends ${endpoint.format}, not raw`,
        ],
      })),
    }
  },
  // Built only for signed-in users: the checkout links the subscription to their id.
  checkoutDoor: (plan, user) => ({ href: polarCheckoutPath(plan.ids.polar, user) }),
  // Through GET /api/checkout, whose guards (rate limit, one live plan) apply.
  startCheckout: async (_asUser, user, plan) => polarCheckoutPath(plan.ids.polar, user),
  // The customer bound by `external_id`, never the stored id alone (docs/polar.md).
  async openPortal(row, userId) {
    if (!row.polar_customer_id) return { kind: 'no-subscription' }
    try {
      const session = await getPolar('portal').customerSessions.create({
        external_customer_id: userId,
        return_url: `${getEnv().SITE_URL}/dashboard/settings/billing`,
      })
      if (session.customer_id !== row.polar_customer_id)
        logger.warn(
          { user: userId },
          'polar portal: stored customer is not the one bound to the user',
        )
      return { kind: 'url', url: session.customer_portal_url }
    } catch (error) {
      const status = httpStatusOf(error)
      if (status === 404 || status === 422) {
        logger.warn({ user: userId, status }, 'polar portal: no customer bound to the user')
        return { kind: 'no-subscription' }
      }
      throw error
    }
  },
  // Polar's portal cannot change the plan: the app does (plan-change.server.ts).
  planChange: { offer: polarPlanChangeOffer, change: changePolarPlan },
  // The customer bound to the user (by external id).
  async userSubscriptions(_row, userId) {
    const polar = getPolar('checkout')
    return (await polar.subscriptions.list({ external_customer_id: userId, limit: PAGE_SIZE }))
      .items
  },
  async scheduleCancel(id, cancel) {
    const updated = await getPolar('checkout').subscriptions.update(id, {
      cancel_at_period_end: cancel,
    })
    const subscription = PolarSubscriptionSchema.parse(updated)
    return {
      fields: polarSubscriptionFields('subscription.updated', subscription)!,
      // Polar's clock; an update always sets it.
      occurredAt: subscription.modified_at ?? new Date().toISOString(),
    }
  },
  ends: 'now',
  async cancelNow(id) {
    try {
      await getPolar('checkout').subscriptions.revoke(id)
    } catch (error) {
      // 404: no such subscription; 403 AlreadyCanceledSubscription: already revoked.
      const status = httpStatusOf(error)
      if (!(status === 404 || (status === 403 && String(error).includes('AlreadyCanceled'))))
        throw error
    }
  },
  // Polar cannot expire a checkout, and refuses one whose customer is deleted (409
  // CheckoutCustomerDeleted); deleting the user's customer also revokes its subscriptions.
  async expireCheckouts(_row, user) {
    await getPolar('checkout')
      .customers.deleteExternal(user.id)
      .catch((error: unknown) => {
        if (httpStatusOf(error) !== 404) throw error
      })
  },
  async updateCustomerEmail(_row, userId, email) {
    const polar = getPolar('checkout')
    const customer = await polar.customers.getExternal(userId).catch((failure: unknown) => {
      if (httpStatusOf(failure) === 404) return null
      throw failure
    })
    if (customer) await polar.customers.update(customer.id, { email: email.new })
  },
  // The user as its webhooks find it (`polarUserLink`, never an email). Since a time (Polar
  // filters no change time): those started or canceled since, and those an order since bills.
  async listSubscriptions(since) {
    const polar = getPolar('checkout')
    const after = since?.toISOString()
    const found = new Map<string, { created_at: string }>()
    const filters = after ? [{ started_after: after }, { canceled_at_after: after }] : [{}]
    for (const filter of filters)
      for await (const item of polar.subscriptions.iterList({ ...filter, limit: PAGE_SIZE }))
        found.set(item.id, item)
    const orders = after ? polar.orders.iterList({ created_after: after, limit: PAGE_SIZE }) : []
    for await (const { subscription_id: id } of orders)
      if (id && !found.has(id)) found.set(id, await polar.subscriptions.get(id))
    return [...found.values()].map((item) => {
      const subscription = PolarSubscriptionSchema.parse(item)
      return {
        userId: polarUserLink(subscription).userId,
        subscriptionId: subscription.id,
        createdAt: item.created_at,
        fields: polarSubscriptionFields('subscription.updated', subscription)!,
      }
    })
  },
  // Paid orders (refunded ones were paid too), through the `order.paid` path of the webhook.
  async listPayments(since) {
    const payments: ListedPayment[] = []
    const filter = { created_after: since?.toISOString(), limit: PAGE_SIZE }
    for await (const order of getPolar('checkout').orders.iterList(filter)) {
      const event = { provider: 'polar', id: `reconcile:${order.id}`, type: 'order.paid' }
      const record = () =>
        applyPolarEvent({ ...event, occurredAt: new Date().toISOString() }, order)
      if (order.paid) payments.push({ id: order.id, record })
    }
    return payments
  },
  paymentLookup(payment, timeoutMs) {
    const orderId = payment.provider_payment_id
    if (payment.status !== 'succeeded' || payment.invoice_url) return null
    return async () => ({
      invoice_url: await lookUpOrderInvoiceUrl(orderId, { timeoutSeconds: timeoutMs / 1000 }),
    })
  },
  checkout: {
    param: 'checkout_id',
    pattern: /^[A-Za-z0-9_-]{1,100}$/,
    async status(id) {
      const { status } = await getPolar('checkout').checkouts.get(id)
      if (status === 'succeeded') return 'complete'
      return status === 'open' || status === 'confirmed' ? 'open' : 'failed'
    },
    // The plan's catalogue price: Polar's checkout is for a product.
    async summary(id) {
      const checkout = await getPolar('checkout').checkouts.get(id)
      const plan = planById('polar', checkout.product_id)
      return {
        plan: plan?.name ?? null,
        amount: plan ? `${formatMoney(plan.amount, plan.currency)} per ${plan.interval}` : null,
        userId: (checkout.metadata as Record<string, unknown> | null)?.user_id,
      }
    },
  },
  handleWebhook: handlePolarWebhook,
  // Checkout, portal and invoices on one Polar server.
  startupCheck: () => describePolarServers(getEnv()).info,
  pastDueHelp:
    'Polar will try the payment again. To pay with another card, open the billing portal and add it under Payment methods.',
}
