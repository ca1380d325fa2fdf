import { type Route as ToolkitRoute, route as toolkitRoute } from '../http'
import { chargeOf, refundCharge } from './charges'
import { createCheckoutSession, field, metadata, text } from './checkout'
import { type EventRequest, previousAttributes, snapshot } from './events'
import { createdFilter, expandPaths, newestFirst, paginate } from './expand'
import { checkKnown, invalid, missingParam, noSuch, type Params } from './http'
import { createPortalSession } from './portal'
import { payInvoiceByApi } from './recovery'
import { DEFAULT_PORTAL_CONFIGURATION } from './store'
import {
  type BillingContext,
  cancelSubscription,
  createCustomer,
  createSubscription,
  updateSubscription,
} from './subscriptions'

export interface ApiCall {
  method: string
  path: string
  params: Params
  request: EventRequest
}

type Handler = (ctx: BillingContext, call: ApiCall, ids: string[]) => unknown

export type Route = ToolkitRoute<Handler>

export const ID = '([^/]+)'

export const route = (method: string, path: string, handle: Handler): Route =>
  toolkitRoute(method, new RegExp(`^/v1/${path}$`), handle)

/** The account's portal configurations; which prices plan changes offer is includable (`expand[]`). */
function configurationObject(ctx: BillingContext, id: string, params: Params) {
  const included = expandPaths(params).some((path) =>
    /^(data\.)?features\.subscription_update\.products$/.test(path),
  )
  if (!ctx.store.account.portalConfigurations.has(id)) throw noSuch('configuration', id)
  const enabled = !ctx.store.account.portalPlanChangesOff.has(id)
  const byProduct = new Map<string, string[]>()
  const offered = ctx.store.account.portalPrices.get(id)
  for (const price of ctx.store.prices.values())
    if (price.active && price.recurring && (offered ?? [price.id]).includes(price.id))
      byProduct.set(price.product, [...(byProduct.get(price.product) ?? []), price.id])
  return {
    id,
    object: 'billing_portal.configuration',
    active: true,
    application: null,
    business_profile: { headline: null, privacy_policy_url: null, terms_of_service_url: null },
    created: 1_735_689_600,
    default_return_url: null,
    features: {
      customer_update: { allowed_updates: [], enabled: false },
      invoice_history: { enabled: true },
      payment_method_update: { enabled: true },
      subscription_cancel: {
        cancellation_reason: { enabled: true, options: [] },
        enabled: true,
        mode: 'at_period_end',
        proration_behavior: 'none',
      },
      subscription_update: {
        default_allowed_updates: enabled ? ['price'] : [],
        enabled,
        ...(included && {
          products: enabled ? [...byProduct].map(([product, prices]) => ({ product, prices })) : [],
        }),
        proration_behavior: 'create_prorations',
        schedule_at_period_end: { conditions: [] },
        trial_update_behavior: 'end_trial',
      },
    },
    is_default: id === DEFAULT_PORTAL_CONFIGURATION,
    livemode: false,
    login_page: { enabled: false, url: null },
    metadata: {},
    updated: 1_735_689_600,
  }
}

const portalConfigurationRoutes: Route[] = [
  route('GET', 'billing_portal/configurations', (ctx, { params, path }) => {
    const isDefault = text(params.is_default)
    const all = [...ctx.store.account.portalConfigurations].map((id) =>
      configurationObject(ctx, id, params),
    )
    const listed = all.filter(
      (configuration) => isDefault === undefined || String(configuration.is_default) === isDefault,
    )
    return paginate(listed, params, path)
  }),
  route('GET', `billing_portal/configurations/${ID}`, (ctx, { params }, [id]) =>
    configurationObject(ctx, id, params),
  ),
]

export const routes: Route[] = [
  route('POST', 'checkout/sessions', (ctx, { params }) => createCheckoutSession(ctx, params)),
  route('GET', `checkout/sessions/${ID}`, (ctx, _call, [sessionId]) =>
    ctx.store.checkoutSession(sessionId),
  ),
  route('GET', 'checkout/sessions', (ctx, { params, path }) => {
    const sessions = newestFirst(ctx.store.checkoutSessions.values()).filter(
      (session) =>
        (!text(params.customer) || session.customer === params.customer) &&
        (!text(params.status) || session.status === params.status),
    )
    return paginate(sessions, params, path)
  }),
  route('POST', `checkout/sessions/${ID}/expire`, (ctx, { request }, [sessionId]) => {
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
  route('POST', 'billing_portal/sessions', (ctx, { params }) => createPortalSession(ctx, params)),
  route('POST', 'customers', (ctx, { params, request }) =>
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
  route('GET', `customers/${ID}`, (ctx, _call, [customerId]) => ctx.store.customer(customerId)),
  route('POST', `customers/${ID}`, (ctx, { params, request }, [customerId]) => {
    const customer = ctx.store.customer(customerId)
    const before = snapshot(customer)
    if (params.email !== undefined) customer.email = text(params.email) ?? null
    if (params.name !== undefined) customer.name = text(params.name) ?? null
    const previous = previousAttributes(before, customer)
    if (Object.keys(previous).length > 0)
      ctx.bus.emit('customer.updated', customer, request, previous)
    return customer
  }),
  route('GET', 'customers', (ctx, { params, path }) => {
    const email = text(params.email)
    const customers = newestFirst(ctx.store.customers.values()).filter(
      (customer) => !email || customer.email === email,
    )
    return paginate(customers, params, path)
  }),
  route('POST', 'subscriptions', (ctx, { params, request }) => {
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
  route('GET', `subscriptions/${ID}`, (ctx, _call, [subId]) => ctx.store.subscription(subId)),
  route('POST', `subscriptions/${ID}`, (ctx, { params, request }, [subId]) => {
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
  route('DELETE', `subscriptions/${ID}`, (ctx, { params, request }, [subId]) => {
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
  route('GET', 'subscriptions', (ctx, { params, path }) => {
    const status = text(params.status)
    const subs = newestFirst(ctx.store.subscriptions.values()).filter(
      (sub) =>
        (!text(params.customer) || sub.customer === params.customer) &&
        (status === 'all' || (status ? sub.status === status : sub.status !== 'canceled')),
    )
    return paginate(subs, params, path)
  }),
  route('GET', `prices/${ID}`, (ctx, _call, [priceId]) => ctx.store.price(priceId)),
  route('GET', 'prices', (ctx, { params, path }) =>
    paginate(newestFirst(ctx.store.prices.values()), params, path),
  ),
  route('GET', `invoices/${ID}`, (ctx, _call, [invoiceId]) => ctx.store.invoice(invoiceId)),
  route('POST', `invoices/${ID}/pay`, (ctx, { params, request }, [invoiceId]) => {
    // The card on file (the product's call), or marked paid elsewhere (the tests').
    checkKnown(params, {
      emulated: ['paid_out_of_band'],
      real: ['expand', 'forgive', 'mandate', 'off_session', 'payment_method', 'source'],
    })
    return payInvoiceByApi(ctx, invoiceId, request, text(params.paid_out_of_band) === 'true')
  }),
  route('GET', 'invoices', (ctx, { params, path }) => {
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
  route('GET', `events/${ID}`, (ctx, _call, [eventId]) => eventWithPending(ctx, eventId)),
  route('GET', 'events', (ctx, { params, path }) => {
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
  route('GET', 'invoice_payments', (ctx, { params, path }) => {
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
  route('GET', `payment_intents/${ID}`, (ctx, _call, [intentId]) =>
    ctx.store.paymentIntent(intentId),
  ),
  route('GET', `charges/${ID}`, (ctx, _call, [chargeId]) => chargeOf(ctx, { charge: chargeId })),
  route('POST', 'refunds', (ctx, { params, request }) => {
    const charge = chargeOf(ctx, {
      charge: text(params.charge),
      paymentIntent: text(params.payment_intent),
    })
    const amount = text(params.amount)
    return refundCharge(ctx, charge, amount === undefined ? undefined : Number(amount), request)
  }),
  // The emulator's one endpoint (the URL it was given), listed and disabled or enabled as on
  // Stripe (docs.stripe.com/api/webhook_endpoints/update, `disabled`).
  route('GET', 'webhook_endpoints', (ctx, { params, path }) => {
    const endpoint = ctx.bus.dispatcher.endpoint
    return paginate(endpoint ? [endpoint] : [], params, path)
  }),
  route('POST', `webhook_endpoints/${ID}`, (ctx, { params }, [endpointId]) => {
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
