/** Handlers for each emulated `/v1` endpoint. */
import { chargeOf, refundCharge } from './charges'
import { createCheckoutSession, field, metadata, text } from './checkout'
import { previousAttributes, snapshot } from './events'
import { createdFilter, newestFirst, paginate } from './expand'
import { checkKnown, invalid, missingParam, noSuch } from './http'
import { createPortalSession } from './portal'
import { portalConfigurationRoutes } from './portal-configurations'
import { payInvoiceByApi } from './recovery'
import { ID as id, type Route, route as r } from './routing'
import {
  type BillingContext,
  cancelSubscription,
  createCustomer,
  createSubscription,
  updateSubscription,
} from './subscriptions'

export const routes: Route[] = [
  r('POST', 'checkout/sessions', (ctx, { params }) => createCheckoutSession(ctx, params)),
  r('GET', `checkout/sessions/${id}`, (ctx, _call, [sessionId]) =>
    ctx.store.checkoutSession(sessionId),
  ),
  r('GET', 'checkout/sessions', (ctx, { params, path }) => {
    const sessions = newestFirst(ctx.store.checkoutSessions.values()).filter(
      (session) =>
        (!text(params.customer) || session.customer === params.customer) &&
        (!text(params.status) || session.status === params.status),
    )
    return paginate(sessions, params, path)
  }),
  r('POST', `checkout/sessions/${id}/expire`, (ctx, { request }, [sessionId]) => {
    const session = ctx.store.checkoutSession(sessionId)
    if (session.status !== 'open') {
      throw invalid(
        `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`,
      )
    }
    Object.assign(session, { status: 'expired', url: null })
    ctx.bus.emit('checkout.session.expired', session, request)
    return session
  }),
  r('POST', 'billing_portal/sessions', (ctx, { params }) => createPortalSession(ctx, params)),
  r('POST', 'customers', (ctx, { params, request }) =>
    createCustomer(
      ctx,
      {
        email: text(params.email) ?? null,
        name: text(params.name) ?? null,
        metadata: metadata(params.metadata),
      },
      request,
    ),
  ),
  r('GET', `customers/${id}`, (ctx, _call, [customerId]) => ctx.store.customer(customerId)),
  r('POST', `customers/${id}`, (ctx, { params, request }, [customerId]) => {
    const customer = ctx.store.customer(customerId)
    const before = snapshot(customer)
    if (params.email !== undefined) customer.email = text(params.email) ?? null
    if (params.name !== undefined) customer.name = text(params.name) ?? null
    const previous = previousAttributes(before, customer)
    if (Object.keys(previous).length > 0)
      ctx.bus.emit('customer.updated', customer, request, previous)
    return customer
  }),
  r('GET', 'customers', (ctx, { params, path }) => {
    const email = text(params.email)
    const customers = newestFirst(ctx.store.customers.values()).filter(
      (customer) => !email || customer.email === email,
    )
    return paginate(customers, params, path)
  }),
  r('POST', 'subscriptions', (ctx, { params, request }) => {
    const customerId = text(params.customer)
    if (!customerId) throw missingParam('customer')
    ctx.store.customer(customerId, 'customer')
    const item = Array.isArray(params.items) ? params.items[0] : undefined
    const priceId = text(field(item, 'price'))
    if (!priceId) throw missingParam('items[0][price]')
    return createSubscription(
      ctx,
      {
        customer: customerId,
        price: ctx.store.price(priceId, 'items[0][price]'),
        quantity: Number(text(field(item, 'quantity')) ?? '1'),
        metadata: metadata(params.metadata),
        automaticTax: text(field(params.automatic_tax, 'enabled')) === 'true',
        now: ctx.store.now(),
      },
      request,
    )
  }),
  r('GET', `subscriptions/${id}`, (ctx, _call, [subId]) => ctx.store.subscription(subId)),
  r('POST', `subscriptions/${id}`, (ctx, { params, request }, [subId]) => {
    checkKnown(params, {
      emulated: ['cancel_at_period_end', 'expand'],
      real: ['cancellation_details', 'items', 'metadata', 'proration_behavior'],
    })
    const sub = ctx.store.subscription(subId)
    const cancel = text(params.cancel_at_period_end)
    if (cancel !== undefined && cancel !== 'true' && cancel !== 'false') {
      throw invalid(`Invalid boolean: ${cancel}`, 'cancel_at_period_end')
    }
    const change = cancel === undefined ? {} : { cancelAtPeriodEnd: cancel === 'true' }
    updateSubscription(ctx, sub, change, request)
    return sub
  }),
  r('DELETE', `subscriptions/${id}`, (ctx, { params, request }, [subId]) => {
    const sub = ctx.store.subscription(subId)
    const details = params.cancellation_details
    cancelSubscription(
      ctx,
      sub,
      { feedback: text(field(details, 'feedback')), comment: text(field(details, 'comment')) },
      request,
    )
    return sub
  }),
  r('GET', 'subscriptions', (ctx, { params, path }) => {
    const status = text(params.status)
    const subs = newestFirst(ctx.store.subscriptions.values()).filter(
      (sub) =>
        (!text(params.customer) || sub.customer === params.customer) &&
        (status === 'all' || (status ? sub.status === status : sub.status !== 'canceled')),
    )
    return paginate(subs, params, path)
  }),
  r('GET', `prices/${id}`, (ctx, _call, [priceId]) => ctx.store.price(priceId)),
  r('GET', 'prices', (ctx, { params, path }) =>
    paginate(newestFirst(ctx.store.prices.values()), params, path),
  ),
  r('GET', `invoices/${id}`, (ctx, _call, [invoiceId]) => ctx.store.invoice(invoiceId)),
  r('POST', `invoices/${id}/pay`, (ctx, { params, request }, [invoiceId]) => {
    // The card on file (the product's call), or marked paid elsewhere (the tests').
    checkKnown(params, {
      emulated: ['paid_out_of_band'],
      real: ['expand', 'forgive', 'mandate', 'off_session', 'payment_method', 'source'],
    })
    return payInvoiceByApi(ctx, invoiceId, request, text(params.paid_out_of_band) === 'true')
  }),
  r('GET', 'invoices', (ctx, { params, path }) => {
    const created = createdFilter(params.created)
    const invoices = newestFirst(ctx.store.invoices.values()).filter(
      (invoice) =>
        created(invoice) &&
        (!text(params.customer) || invoice.customer === params.customer) &&
        (!text(params.status) || invoice.status === params.status) &&
        (!text(params.subscription) ||
          invoice.parent?.subscription_details.subscription === params.subscription),
    )
    return paginate(invoices, params, path)
  }),
  r('GET', `events/${id}`, (ctx, _call, [eventId]) => eventWithPending(ctx, eventId)),
  r('GET', 'events', (ctx, { params, path }) => {
    const types = Array.isArray(params.types) ? params.types : []
    const deliverySuccess = text(params.delivery_success)
    const created = createdFilter(params.created)
    const events = newestFirst(ctx.store.events.values())
      .filter(
        (event) =>
          created(event) &&
          (types.length === 0 || types.includes(event.type)) &&
          (!deliverySuccess || delivered(ctx, event.id) === (deliverySuccess === 'true')),
      )
      .map((event) => eventWithPending(ctx, event.id))
    return paginate(events, params, path)
  }),
  r('GET', 'invoice_payments', (ctx, { params, path }) => {
    const invoice = text(params.invoice)
    if (invoice && !ctx.store.invoices.has(invoice)) throw noSuch('invoice', invoice, 'invoice')
    const status = text(params.status)
    if (status && !['canceled', 'open', 'paid'].includes(status)) {
      throw invalid(`Invalid status: must be one of canceled, open, or paid`, 'status')
    }
    const payments = [...ctx.store.invoicePayments.values()].filter(
      (payment) =>
        (!invoice || payment.invoice === invoice) && (!status || payment.status === status),
    )
    return paginate(newestFirst(payments), params, path)
  }),
  r('GET', `payment_intents/${id}`, (ctx, _call, [intentId]) => ctx.store.paymentIntent(intentId)),
  r('GET', `charges/${id}`, (ctx, _call, [chargeId]) => chargeOf(ctx, { charge: chargeId })),
  r('POST', 'refunds', (ctx, { params, request }) => {
    const charge = chargeOf(ctx, {
      charge: text(params.charge),
      paymentIntent: text(params.payment_intent),
    })
    const amount = text(params.amount)
    return refundCharge(ctx, charge, amount === undefined ? undefined : Number(amount), request)
  }),
  // The emulator's one endpoint (the URL it was given), listed and disabled or enabled as on
  // Stripe (docs.stripe.com/api/webhook_endpoints/update, `disabled`).
  r('GET', 'webhook_endpoints', (ctx, { params, path }) => {
    const endpoint = ctx.bus.dispatcher.endpoint
    return paginate(endpoint ? [endpoint] : [], params, path)
  }),
  r('POST', `webhook_endpoints/${id}`, (ctx, { params }, [endpointId]) => {
    const endpoint = ctx.bus.dispatcher.endpoint
    if (!endpoint || endpoint.id !== endpointId) throw noSuch('webhook endpoint', endpointId)
    const disabled = text(params.disabled)
    if (disabled !== undefined && disabled !== 'true' && disabled !== 'false') {
      throw invalid(`Invalid boolean: ${disabled}`, 'disabled')
    }
    if (disabled !== undefined) ctx.bus.dispatcher.setDisabled(disabled === 'true')
    return endpoint
  }),
  ...portalConfigurationRoutes,
]

function eventWithPending(ctx: BillingContext, eventId: string) {
  const event = ctx.store.event(eventId)
  const pending = delivered(ctx, event.id) ? 0 : event.pending_webhooks
  return { ...event, pending_webhooks: pending }
}

/** Delivered to every endpoint it was sent to (none, when the endpoint was disabled). */
function delivered(ctx: BillingContext, eventId: string) {
  const state = ctx.store.deliveryState.get(eventId)
  return state === 'delivered' || state === 'not_sent'
}
