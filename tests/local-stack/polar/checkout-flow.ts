import type { z } from 'zod'

import { ApiError } from './http'
import { createOrder } from './order-flow'
import { addInterval, type EmulatorContext, now, token } from './state'
import type { Address, CheckoutRecord, CustomerRecord, SubscriptionRecord } from './types'
import type { checkoutCreateSchema } from './validation'

export function createCheckout(
  ctx: EmulatorContext,
  input: z.infer<typeof checkoutCreateSchema>,
): CheckoutRecord {
  const id = ctx.state.newId()
  const clientSecret = token('polar_c_')
  const createdAt = now()
  // A checkout for an existing customer is pre-filled with the customer's details.
  const customer = input.customer_id ? ctx.state.customers.get(input.customer_id) : undefined
  const checkout: CheckoutRecord = {
    id,
    client_secret: clientSecret,
    created_at: createdAt,
    modified_at: null,
    status: 'open',
    product_ids: input.products,
    product_id: input.products[0],
    customer_id: input.customer_id ?? null,
    customer_email: input.customer_email ?? customer?.email ?? null,
    customer_name: customer?.name ?? null,
    external_customer_id: input.external_customer_id ?? null,
    metadata: input.metadata ?? {},
    customer_metadata: {},
    // Polar substitutes the placeholder; without a URL it shows the checkout's own page.
    success_url: input.success_url
      ? input.success_url.replaceAll('{CHECKOUT_ID}', id)
      : `${ctx.publicUrl}/checkout/${clientSecret}`,
    expires_at: new Date(Date.parse(createdAt) + 60 * 60 * 1000).toISOString(),
    subscription_id: null,
  }
  ctx.state.checkouts.set(id, checkout)
  ctx.emitCheckout(checkout, 'created')
  return checkout
}

export interface PaymentDetails {
  email?: string
  name?: string
  country?: string
}

/** Pays an open checkout, emitting what Polar sends for a new subscription, in its order. */
export function completeCheckout(
  ctx: EmulatorContext,
  checkout: CheckoutRecord,
  details: PaymentDetails = {},
) {
  if (checkout.status !== 'open') {
    throw new ApiError(
      403,
      'AlreadyActiveSubscriptionError',
      `Checkout ${checkout.id} is ${checkout.status}, not open.`,
    )
  }
  // `_create_or_update_customer`: a checkout for a customer deleted since is not confirmed.
  if (checkout.customer_id && !ctx.state.liveCustomer(checkout.customer_id))
    throw new ApiError(
      409,
      'CheckoutCustomerDeleted',
      'The customer associated with this checkout has been deleted.',
    )
  const { state } = ctx
  const email = details.email ?? checkout.customer_email ?? 'customer@example.com'
  const name = details.name ?? checkout.customer_name ?? 'Local Customer'
  // The customer by id, else by external id (both linked at creation), else by email.
  const existing =
    (checkout.customer_id ? state.customers.get(checkout.customer_id) : undefined) ??
    (checkout.external_customer_id
      ? state.customerByExternalId(checkout.external_customer_id)
      : undefined) ??
    state.customerByEmail(email)
  // `_validate_subscription_uniqueness`: one billable subscription per customer, unless the
  // organization allows several.
  if (
    existing &&
    !state.organization.subscription_settings.allow_multiple_subscriptions &&
    state.subscriptionsOf(existing.id).some((s) => s.status !== 'canceled')
  )
    throw new ApiError(
      403,
      'AlreadyActiveSubscriptionError',
      'You already have an active subscription.',
    )
  const address: Address = {
    line1: null,
    line2: null,
    postal_code: null,
    city: null,
    state: null,
    country: details.country ?? 'US',
  }

  checkout.status = 'confirmed'
  checkout.customer_email = email
  checkout.customer_name = name
  ctx.touch(checkout)
  ctx.emitCheckout(checkout, 'updated')

  // A reused customer takes the checkout's external id when it has none.
  if (existing && !existing.external_id && checkout.external_customer_id) {
    existing.external_id = checkout.external_customer_id
    ctx.touch(existing)
    ctx.emitCustomer(existing, 'updated')
  }
  const customer = existing ?? newCustomer(ctx, checkout, email, name, address)
  checkout.customer_id = customer.id

  const product = ctx.state.product(checkout.product_id)
  const startedAt = now()
  const subscription: SubscriptionRecord = {
    id: ctx.state.newId(),
    created_at: startedAt,
    modified_at: null,
    customer_id: customer.id,
    product_id: product.id,
    checkout_id: checkout.id,
    status: 'active',
    amount: product.amount,
    currency: product.currency,
    recurring_interval: product.recurring_interval,
    current_period_start: startedAt,
    current_period_end: addInterval(startedAt, product.recurring_interval),
    cancel_at_period_end: false,
    canceled_at: null,
    started_at: startedAt,
    ends_at: null,
    ended_at: null,
    past_due_at: null,
    metadata: { ...checkout.metadata },
  }
  ctx.state.subscriptions.set(subscription.id, subscription)
  ctx.emitSubscription(subscription, 'created', 'active')

  const order = createOrder(ctx, subscription, 'subscription_create', {
    checkoutId: checkout.id,
    billingName: name,
    address,
    paid: true,
  })

  checkout.status = 'succeeded'
  checkout.subscription_id = subscription.id
  ctx.touch(checkout)
  ctx.emitCheckout(checkout, 'updated')
  return { checkout, customer, subscription, order }
}

function newCustomer(
  ctx: EmulatorContext,
  checkout: CheckoutRecord,
  email: string,
  name: string,
  address: Address,
) {
  const customer: CustomerRecord = {
    id: ctx.state.newId(),
    created_at: now(),
    modified_at: null,
    email,
    name,
    external_id: checkout.external_customer_id,
    metadata: {},
    billing_address: address,
  }
  ctx.state.customers.set(customer.id, customer)
  ctx.emitCustomer(customer, 'created')
  return customer
}
