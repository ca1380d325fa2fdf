import { z } from 'zod'

import { bodyError, lookup } from './api-helpers'
import type { EmulatorContext } from './context'
import { notFound, type Router, sendJson } from './http'
import { customerJson } from './objects'
import { now } from './state'
import { revokeSubscription } from './subscription-flow'
import type { CustomerRecord } from './types'
import { metadata, parseBody } from './validation'

const BILLABLE = ['active', 'trialing', 'past_due']
const email = z.string().regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'value is not a valid email address')

const customerCreateSchema = z.object({
  email,
  name: z.string().nullish(),
  external_id: z.string().min(1).nullish(),
  metadata: metadata.optional(),
})

const customerUpdateSchema = z.object({
  email: email.nullish(),
  name: z.string().nullish(),
  external_id: z.string().min(1).nullish(),
  metadata: metadata.optional(),
})

/**
 * Creating and updating customers, with Polar's rules: the email and the external id are each
 * unique within the organization (422 otherwise), and an external id, once set, can't be
 * changed.
 */
export function registerCustomerWrites(router: Router, ctx: EmulatorContext) {
  const { state } = ctx

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
    ctx.emitCustomer('customer.created', customer)
    sendJson(res, 201, customerJson(state, customer))
  })

  router.on('PATCH', '/v1/customers/:id', (req, res) => {
    const customer = lookup(state.customers, req.params.id, 'Customer')
    if (customer.deleted_at) throw notFound('Customer not found')
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
    ctx.emitCustomer('customer.updated', customer)
    sendJson(res, 200, customerJson(state, customer))
  })

  // Polar's deletion (`customer/service.py` `delete`, `repository.soft_delete`): the customer
  // is soft-deleted, its external id moved to metadata, every billable subscription revoked
  // (`subscription.cancel_customer`); its checkouts can no longer be confirmed. 204.
  router.on('DELETE', '/v1/customers/external/:externalId', (req, res) => {
    const customer = state.customerByExternalId(req.params.externalId)
    if (!customer) throw notFound('Customer not found')
    customer.deleted_at = now()
    customer.metadata = { ...customer.metadata, __external_id: req.params.externalId }
    customer.external_id = null
    ctx.touch(customer)
    for (const subscription of state.subscriptionsOf(customer.id))
      if (BILLABLE.includes(subscription.status)) revokeSubscription(ctx, subscription)
    res.writeHead(204).end()
  })
}
