import { registerBillingApi } from './api-billing'
import { registerCustomerWrites } from './api-customers'
import { bodyError, filterBy, lookup, newestFirst, paging } from './api-helpers'
import { createCheckout } from './checkout-flow'
import { checkoutJson, customerSessionJson, listJson } from './checkout-objects'
import type { EmulatorContext } from './context'
import { notFound, type Router, sendJson, ValidationFailed } from './http'
import { customerJson, productJson } from './objects'
import { now, token } from './state'
import { checkoutCreateSchema, customerSessionCreateSchema, parseBody } from './validation'

/** Polar's public API under /v1, as `@polar-sh/sdk` 1.0.1 (`/2026-10`) calls it. */
export function registerApi(router: Router, ctx: EmulatorContext) {
  const { state } = ctx

  router.on('GET', '/v1/products/', (req, res) => {
    const items = filterBy([...state.products.values()], req, 'id', (p) => p.id).map((p) =>
      productJson(state, p),
    )
    const { page, limit } = paging(req)
    sendJson(res, 200, listJson(items, page, limit))
  })
  // The organization's webhook endpoints (one here); the secret is shown, as Polar's API does.
  router.on('GET', '/v1/webhooks/endpoints', (req, res) => {
    const { page, limit } = paging(req)
    sendJson(res, 200, listJson(ctx.webhooks.endpointJson(state.organization.id), page, limit))
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
    if (input.customer_id && !state.liveCustomer(input.customer_id)) {
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
        ? state.liveCustomer(input.customer_id)
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
    let items = newestFirst(state.liveCustomers())
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
    const customer = lookup(state.customers, req.params.id, 'Customer')
    if (customer.deleted_at) throw notFound('Customer not found')
    sendJson(res, 200, customerJson(state, customer))
  })
  registerCustomerWrites(router, ctx)
  registerBillingApi(router, ctx)
}
