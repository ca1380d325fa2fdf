import { createCheckout } from './checkout-flow'
import type { EmulatorContext } from './context'
import { notFound, sendJson, ValidationFailed, type Req, type Router } from './http'
import {
  checkoutJson,
  customerJson,
  customerSessionJson,
  listJson,
  orderJson,
  productJson,
  subscriptionJson,
} from './objects'
import { invoiceUrl, requestInvoice } from './order-flow'
import { now, token } from './state'
import { cancelSubscription, revokeSubscription, uncancelSubscription } from './subscription-flow'
import {
  assertUuid,
  checkoutCreateSchema,
  customerSessionCreateSchema,
  parseBody,
  subscriptionUpdateSchema,
} from './validation'

function paging(req: Req) {
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1)
  const limit = Math.min(100, Math.max(1, Number(req.query.get('limit') ?? 10) || 10))
  return { page, limit }
}

/** Keeps items whose `key` is in the repeated query parameter `name`, when given. */
function filterBy<T>(items: T[], req: Req, name: string, key: (item: T) => string | null) {
  const wanted = req.query.getAll(name)
  return wanted.length === 0 ? items : items.filter((item) => wanted.includes(key(item) ?? ''))
}

/** Newest first; records created in the same millisecond keep reverse insertion order. */
function newestFirst<T extends { created_at: string }>(items: T[]) {
  return [...items].reverse().sort((a, b) => b.created_at.localeCompare(a.created_at))
}

function bodyError(loc: string, msg: string, input: unknown) {
  return new ValidationFailed([{ type: 'value_error', loc: ['body', loc], msg, input }])
}

/** Polar's public API under /v1, as `@polar-sh/sdk` 1.0.1 (`/2026-10`) calls it. */
export function registerApi(router: Router, ctx: EmulatorContext) {
  const { state } = ctx

  const lookup = <T>(map: Map<string, T>, id: string, what: string) => {
    assertUuid(id)
    const found = map.get(id)
    if (!found) throw notFound(`${what} not found`)
    return found
  }

  router.on('GET', '/v1/products/', (req, res) => {
    const items = filterBy([...state.products.values()], req, 'id', (p) => p.id).map((p) =>
      productJson(state, p),
    )
    const { page, limit } = paging(req)
    sendJson(res, 200, listJson(items, page, limit))
  })
  router.on('GET', '/v1/products/:id', (req, res) => {
    sendJson(res, 200, productJson(state, lookup(state.products, req.params.id, 'Product')))
  })

  router.on('POST', '/v1/checkouts/', (req, res) => {
    const input = parseBody(checkoutCreateSchema, req.body)
    input.products.forEach((id, index) => {
      if (!state.products.has(id)) {
        throw new ValidationFailed([
          {
            type: 'value_error',
            loc: ['body', 'products', index],
            msg: 'Product does not exist.',
            input: id,
          },
        ])
      }
    })
    if (input.customer_id && !state.customers.has(input.customer_id)) {
      throw bodyError('customer_id', 'Customer does not exist.', input.customer_id)
    }
    const checkout = createCheckout(ctx, input)
    sendJson(res, 201, checkoutJson(state, checkout, ctx.publicUrl))
  })
  router.on('GET', '/v1/checkouts/:id', (req, res) => {
    sendJson(
      res,
      200,
      checkoutJson(state, lookup(state.checkouts, req.params.id, 'Checkout'), ctx.publicUrl),
    )
  })

  router.on('POST', '/v1/customer-sessions/', (req, res) => {
    const input = parseBody(customerSessionCreateSchema, req.body)
    const customer =
      'customer_id' in input
        ? state.customers.get(input.customer_id)
        : state.customerByExternalId(input.external_customer_id)
    if (!customer) {
      const loc = 'customer_id' in input ? 'customer_id' : 'external_customer_id'
      throw bodyError(
        loc,
        'Customer does not exist.',
        'customer_id' in input ? input.customer_id : input.external_customer_id,
      )
    }
    const createdAt = now()
    const session = {
      id: state.newId(),
      token: token('polar_cst_'),
      created_at: createdAt,
      expires_at: new Date(Date.parse(createdAt) + 60 * 60 * 1000).toISOString(),
      customer_id: customer.id,
      return_url: input.return_url ?? null,
    }
    state.sessions.set(session.id, session)
    sendJson(res, 201, customerSessionJson(state, session, ctx.publicUrl))
  })

  router.on('GET', '/v1/customers/', (req, res) => {
    let items = newestFirst([...state.customers.values()])
    const email = req.query.get('email')
    if (email) items = items.filter((c) => c.email.toLowerCase() === email.toLowerCase())
    const query = req.query.get('query')?.toLowerCase()
    if (query)
      items = items.filter((c) =>
        `${c.email} ${c.name ?? ''} ${c.external_id ?? ''}`.toLowerCase().includes(query),
      )
    const { page, limit } = paging(req)
    sendJson(
      res,
      200,
      listJson(
        items.map((c) => customerJson(state, c)),
        page,
        limit,
      ),
    )
  })
  router.on('GET', '/v1/customers/external/:externalId', (req, res) => {
    const customer = state.customerByExternalId(req.params.externalId)
    if (!customer) throw notFound('Customer not found')
    sendJson(res, 200, customerJson(state, customer))
  })
  router.on('GET', '/v1/customers/:id', (req, res) => {
    sendJson(res, 200, customerJson(state, lookup(state.customers, req.params.id, 'Customer')))
  })

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
    if ('revoke' in update) revokeSubscription(ctx, subscription, update)
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
