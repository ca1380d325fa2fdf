import type { ServerResponse } from 'node:http'

import { createCheckout } from './checkout-flow'
import { bodyError, notFound, type Req, type Router, sendJson, ValidationFailed } from './http'
import {
  checkoutJson,
  customerJson,
  customerSessionJson,
  listJson,
  orderJson,
  subscriptionJson,
} from './objects'
import { invoiceUrl, requestInvoice } from './order-flow'
import { type EmulatorContext, now, token } from './state'
import {
  cancelSubscription,
  changeProduct,
  revokeSubscription,
  uncancelSubscription,
} from './subscription-flow'
import type { CustomerRecord } from './types'
import {
  assertUuid,
  checkoutCreateSchema,
  customerCreateSchema,
  customerSessionCreateSchema,
  customerUpdateSchema,
  parseBody,
  subscriptionUpdateSchema,
} from './validation'

export function registerApi(router: Router, ctx: EmulatorContext) {
  const { state } = ctx
  /** Polar's list envelope, newest first, a page of `limit` (10 by default, at most 100). */
  const sendList = <T>(req: Req, res: ServerResponse, items: T[], json: (item: T) => unknown) => {
    const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1)
    const limit = Math.min(100, Math.max(1, Number(req.query.get('limit') ?? 10) || 10))
    sendJson(res, 200, listJson(newestFirst(items).map(json), page, limit))
  }
  const liveCustomer = (id: string) => {
    const customer = lookup(state.customers, id, 'Customer')
    if (customer.deleted_at) throw notFound('Customer not found')
    return customer
  }
  const byExternalId = (externalId: string) => {
    const customer = state.customerByExternalId(externalId)
    if (!customer) throw notFound('Customer not found')
    return customer
  }

  // The organization's webhook endpoints (one here); the secret is shown, as Polar's API does.
  router.on('GET', '/v1/webhooks/endpoints', (req, res) => {
    sendList(req, res, ctx.webhooks.endpointJson(state.organization.id), (e) => e)
  })

  router.on('POST', '/v1/checkouts/', (req, res) => {
    const input = parseBody(checkoutCreateSchema, req.body)
    input.products.forEach((id, index) => {
      if (!state.products.has(id))
        throw bodyError(['products', index], 'Product does not exist.', id)
    })
    if (input.customer_id && !state.liveCustomer(input.customer_id)) {
      throw bodyError('customer_id', 'Customer does not exist.', input.customer_id)
    }
    sendJson(res, 201, checkoutJson(state, createCheckout(ctx, input), ctx.publicUrl))
  })
  router.on('GET', '/v1/checkouts/:id', (req, res) => {
    const checkout = lookup(state.checkouts, req.params.id, 'Checkout')
    sendJson(res, 200, checkoutJson(state, checkout, ctx.publicUrl))
  })

  router.on('POST', '/v1/customer-sessions/', (req, res) => {
    const input = parseBody(customerSessionCreateSchema, req.body)
    const [loc, value] =
      'customer_id' in input
        ? ['customer_id', input.customer_id]
        : ['external_customer_id', input.external_customer_id]
    const customer =
      'customer_id' in input ? state.liveCustomer(value) : state.customerByExternalId(value)
    if (!customer) throw bodyError(loc, 'Customer does not exist.', value)
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
    const email = req.query.get('email')?.toLowerCase()
    const items = [...state.customers.values()].filter(
      (c) => !c.deleted_at && (!email || c.email.toLowerCase() === email),
    )
    sendList(req, res, items, (c) => customerJson(state, c))
  })
  router.on('GET', '/v1/customers/external/:externalId', (req, res) => {
    sendJson(res, 200, customerJson(state, byExternalId(req.params.externalId)))
  })

  // Polar's rules: the email and the external id are each unique within the organization
  // (422), and an external id, once set, can't be changed.
  function assertFree(
    record: CustomerRecord | null,
    changes: { email?: string | null; external_id?: string | null },
  ) {
    const sameEmail = changes.email ? state.customerByEmail(changes.email) : undefined
    if (sameEmail && sameEmail !== record)
      throw bodyError('email', 'A customer with this email address already exists.', changes.email)
    const sameExternal = changes.external_id
      ? state.customerByExternalId(changes.external_id)
      : undefined
    if (sameExternal && sameExternal !== record)
      throw bodyError(
        'external_id',
        'A customer with this external ID already exists.',
        changes.external_id,
      )
  }

  router.on('POST', '/v1/customers/', (req, res) => {
    const input = parseBody(customerCreateSchema, req.body)
    assertFree(null, input)
    const customer: CustomerRecord = {
      id: state.newId(),
      created_at: now(),
      modified_at: null,
      email: input.email,
      name: input.name ?? null,
      external_id: input.external_id ?? null,
      metadata: input.metadata ?? {},
      billing_address: null,
    }
    state.customers.set(customer.id, customer)
    ctx.emitCustomer(customer, 'created')
    sendJson(res, 201, customerJson(state, customer))
  })

  router.on('PATCH', '/v1/customers/:id', (req, res) => {
    const customer = liveCustomer(req.params.id)
    const input = parseBody(customerUpdateSchema, req.body)
    if (input.external_id && customer.external_id && input.external_id !== customer.external_id)
      throw bodyError(
        'external_id',
        "The external ID can't be updated once set.",
        input.external_id,
      )
    assertFree(customer, input)
    if (input.email) customer.email = input.email
    if (input.name !== undefined) customer.name = input.name
    if (input.external_id) customer.external_id = input.external_id
    if (input.metadata) customer.metadata = input.metadata
    ctx.touch(customer)
    ctx.emitCustomer(customer, 'updated')
    sendJson(res, 200, customerJson(state, customer))
  })

  // Polar's deletion (`customer/service.py` `delete`, `repository.soft_delete`): the customer
  // is soft-deleted, its external id moved to metadata, every billable subscription revoked
  // (`subscription.cancel_customer`); its checkouts can no longer be confirmed. 204.
  router.on('DELETE', '/v1/customers/external/:externalId', (req, res) => {
    const customer = byExternalId(req.params.externalId)
    customer.deleted_at = now()
    customer.metadata = {
      ...customer.metadata,
      __external_id: req.params.externalId,
    }
    customer.external_id = null
    ctx.touch(customer)
    for (const subscription of state.subscriptionsOf(customer.id))
      if (subscription.status !== 'canceled') revokeSubscription(ctx, subscription)
    res.writeHead(204).end()
  })

  router.on('GET', '/v1/subscriptions/', (req, res) => {
    const externalId = req.query.get('external_customer_id')
    let items = [...state.subscriptions.values()].filter(
      (s) => externalId === null || state.customer(s.customer_id).external_id === externalId,
    )
    items = filterAfter(items, req, 'started_after', (s) => s.started_at)
    items = filterAfter(items, req, 'canceled_at_after', (s) => s.canceled_at)
    sendList(req, res, items, (s) => subscriptionJson(state, s))
  })
  router.on('GET', '/v1/subscriptions/:id', (req, res) => {
    const subscription = lookup(state.subscriptions, req.params.id, 'Subscription')
    sendJson(res, 200, subscriptionJson(state, subscription))
  })
  router.on('PATCH', '/v1/subscriptions/:id', (req, res) => {
    const subscription = lookup(state.subscriptions, req.params.id, 'Subscription')
    const update = parseBody(subscriptionUpdateSchema, req.body)
    if ('product_id' in update) changeProduct(ctx, subscription, update.product_id)
    else if (update.cancel_at_period_end) cancelSubscription(ctx, subscription)
    else uncancelSubscription(ctx, subscription)
    sendJson(res, 200, subscriptionJson(state, subscription))
  })
  router.on('DELETE', '/v1/subscriptions/:id', (req, res) => {
    const subscription = lookup(state.subscriptions, req.params.id, 'Subscription')
    revokeSubscription(ctx, subscription)
    sendJson(res, 200, subscriptionJson(state, subscription))
  })

  router.on('GET', '/v1/orders/', (req, res) => {
    const items = filterAfter([...state.orders.values()], req, 'created_after', (o) => o.created_at)
    sendList(req, res, items, (o) => orderJson(state, o))
  })
  router.on('POST', '/v1/orders/:id/invoice', (req, res) => {
    requestInvoice(ctx, lookup(state.orders, req.params.id, 'Order'))
    // FastAPI `-> None` with status 202: a JSON `null` body.
    sendJson(res, 202, null)
  })
  router.on('GET', '/v1/orders/:id/invoice', (req, res) => {
    sendJson(res, 200, {
      url: invoiceUrl(ctx, lookup(state.orders, req.params.id, 'Order')),
    })
  })
}

/** Newest first; records created in the same millisecond keep reverse insertion order. */
function newestFirst<T>(items: T[]) {
  const created = (item: T) => (item as { created_at?: string }).created_at ?? ''
  return [...items].reverse().sort((a, b) => created(b).localeCompare(created(a)))
}

/** Finds a record by its UUID path parameter: 422 when malformed, 404 when unknown. */
function lookup<T>(map: Map<string, T>, id: string, what: string) {
  assertUuid(id)
  const found = map.get(id)
  if (!found) throw notFound(`${what} not found`)
  return found
}

/** Polar's `…_after` filters: a datetime with its offset (`AwareDatetime`), else 422. */
function filterAfter<T>(items: T[], req: Req, name: string, key: (item: T) => string | null) {
  const value = req.query.get(name)
  if (value === null) return items
  const at = Date.parse(value)
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:?\d\d)$/i.test(value) || Number.isNaN(at)) {
    const msg = 'Input should be a valid datetime with timezone info'
    throw new ValidationFailed([
      { type: 'timezone_aware', loc: ['query', name], msg, input: value },
    ])
  }
  return items.filter((item) => {
    const date = key(item)
    return date !== null && Date.parse(date) >= at
  })
}
