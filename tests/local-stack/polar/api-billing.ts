import { filterBy, filterByDate, lookup, newestFirst, paging } from './api-helpers'
import { listJson } from './checkout-objects'
import type { EmulatorContext } from './context'
import { type Router, sendJson } from './http'
import { orderJson, subscriptionJson } from './objects'
import { invoiceUrl, requestInvoice } from './order-flow'
import {
  cancelSubscription,
  changeProduct,
  revokeSubscription,
  uncancelSubscription,
} from './subscription-flow'
import { parseBody, subscriptionUpdateSchema } from './validation'

/** Subscriptions and orders under /v1, including the invoice endpoints. */
export function registerBillingApi(router: Router, ctx: EmulatorContext) {
  const { state } = ctx

  router.on('GET', '/v1/subscriptions/', (req, res) => {
    let items = newestFirst([...state.subscriptions.values()])
    items = filterBy(items, req, 'customer_id', (s) => s.customer_id)
    items = filterBy(items, req, 'product_id', (s) => s.product_id)
    items = filterBy(
      items,
      req,
      'external_customer_id',
      (s) => state.customer(s.customer_id).external_id,
    )
    items = filterBy(items, req, 'status', (s) => s.status)
    for (const edge of ['after', 'before'] as const) {
      items = filterByDate(items, req, `started_${edge}`, (s) => s.started_at)
      items = filterByDate(items, req, `canceled_at_${edge}`, (s) => s.canceled_at)
    }
    const active = req.query.get('active')
    if (active !== null)
      items = items.filter(
        (s) => (s.status === 'active' || s.status === 'trialing') === (active === 'true'),
      )
    const { page, limit } = paging(req)
    sendJson(
      res,
      200,
      listJson(
        items.map((s) => subscriptionJson(state, s)),
        page,
        limit,
      ),
    )
  })
  router.on('GET', '/v1/subscriptions/:id', (req, res) => {
    sendJson(
      res,
      200,
      subscriptionJson(state, lookup(state.subscriptions, req.params.id, 'Subscription')),
    )
  })
  router.on('PATCH', '/v1/subscriptions/:id', (req, res) => {
    const subscription = lookup(state.subscriptions, req.params.id, 'Subscription')
    const update = parseBody(subscriptionUpdateSchema, req.body)
    if ('product_id' in update) changeProduct(ctx, subscription, update)
    else if ('revoke' in update) revokeSubscription(ctx, subscription, update)
    else if (update.cancel_at_period_end) cancelSubscription(ctx, subscription, update)
    else uncancelSubscription(ctx, subscription)
    sendJson(res, 200, subscriptionJson(state, subscription))
  })
  router.on('DELETE', '/v1/subscriptions/:id', (req, res) => {
    const subscription = lookup(state.subscriptions, req.params.id, 'Subscription')
    revokeSubscription(ctx, subscription)
    sendJson(res, 200, subscriptionJson(state, subscription))
  })

  router.on('GET', '/v1/orders/', (req, res) => {
    let items = newestFirst([...state.orders.values()])
    items = filterBy(items, req, 'customer_id', (o) => o.customer_id)
    items = filterBy(items, req, 'product_id', (o) => o.product_id)
    items = filterBy(items, req, 'subscription_id', (o) => o.subscription_id)
    items = filterBy(items, req, 'checkout_id', (o) => o.checkout_id)
    items = filterBy(
      items,
      req,
      'external_customer_id',
      (o) => state.customer(o.customer_id).external_id,
    )
    items = filterBy(items, req, 'status', (o) => o.status)
    items = filterByDate(items, req, 'created_after', (o) => o.created_at)
    items = filterByDate(items, req, 'created_before', (o) => o.created_at)
    const { page, limit } = paging(req)
    sendJson(
      res,
      200,
      listJson(
        items.map((o) => orderJson(state, o)),
        page,
        limit,
      ),
    )
  })
  router.on('GET', '/v1/orders/:id', (req, res) => {
    sendJson(res, 200, orderJson(state, lookup(state.orders, req.params.id, 'Order')))
  })
  router.on('POST', '/v1/orders/:id/invoice', (req, res) => {
    requestInvoice(ctx, lookup(state.orders, req.params.id, 'Order'))
    // FastAPI `-> None` with status 202: a JSON `null` body.
    sendJson(res, 202, null)
  })
  router.on('GET', '/v1/orders/:id/invoice', (req, res) => {
    sendJson(res, 200, { url: invoiceUrl(ctx, lookup(state.orders, req.params.id, 'Order')) })
  })
}
