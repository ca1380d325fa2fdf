import type { IncomingMessage, ServerResponse } from 'node:http'

import type { Catalog } from '../catalog'
import { listen } from '../http'
import { type AdminContext, handleAdmin } from './admin'
import { handleApi } from './api'
import { chargeOf, closeDispute, openDispute } from './charges'
import { type CardDetails, completeCheckout } from './checkout'
import { EventBus } from './events'
import { FaultInjector, type FaultInput } from './faults'
import { sendHtml, sendJson } from './http'
import { handleCheckoutPage, handleInvoicePage, notFound } from './pages'
import { handlePortalPage } from './portal'
import { DEFAULT_PORTAL_CONFIGURATION, Store, type StripeEvent } from './store'
import {
  advanceSubscription,
  type BillingContext,
  createCustomer,
  createSubscription,
} from './subscriptions'
import {
  type DeliveryOptions,
  type RetryPolicy,
  type RetrySchedule,
  TEST_MODE_RETRIES,
  WebhookDispatcher,
  type WebhookEndpointObject,
} from './webhooks'

export type { Delivery, DeliveryOptions } from './webhooks'

export interface StripeEmulatorOptions {
  catalog: Catalog
  port?: number
  webhookUrl?: string
  webhookSecret: string
  /** The secret key requests must carry; without it any `sk_test_`/`rk_test_` key is accepted. */
  apiKey?: string
  /** Default: Stripe's test mode, three retries over a few hours (`TEST_MODE_RETRIES`). */
  retry?: RetryPolicy | RetrySchedule
  delivery?: DeliveryOptions
  /** Stripe Tax set up (else `automatic_tax` is refused `stripe_tax_inactive`, as on a new account). */
  taxActive?: boolean
  /** The account's website (`business_profile.url`), which the hosted invoice page links back to. */
  businessUrl?: string
}

export type StripeEmulator = Awaited<ReturnType<typeof startStripeEmulator>>

export async function startStripeEmulator(options: StripeEmulatorOptions) {
  const store = new Store(options.catalog)
  store.account.taxActive = options.taxActive ?? false
  store.account.businessUrl = options.businessUrl ?? null
  const dispatcher = new WebhookDispatcher(
    options.webhookUrl,
    options.webhookSecret,
    options.retry ?? TEST_MODE_RETRIES,
    store.deliveryState,
    () => store.now(),
    options.delivery,
  )
  const bus = new EventBus(store, dispatcher)
  const faults = new FaultInjector()
  const ctx: AdminContext = { store, bus, dispatcher, faults, publicUrl: '' }

  const server = await listen(
    options.port,
    (req, res) => route(ctx, options.apiKey, req, res),
    (error, res) => sendJson(res, 500, { error: { type: 'api_error', message: String(error) } }),
  )
  const { port } = server
  ctx.publicUrl = `http://localhost:${port}`

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    publicUrl: ctx.publicUrl,
    async close() {
      dispatcher.close()
      await server.close()
    },
    setWebhookUrl: (url: string) => dispatcher.setUrl(url),
    deliveries: () => dispatcher.deliveries(),
    events: () => [...store.events.values()].map((event) => structuredClone(event)),
    idle: () => dispatcher.idle(),
    /** Like `stripe trigger <type>`: runs the flow and returns the event of that type. */
    trigger: async (type: string, triggerOptions?: TriggerOptions) =>
      trigger(ctx, type, triggerOptions),
    completeCheckout: async (sessionId: string, card: Partial<CardDetails> = {}) =>
      completeCheckout(ctx, sessionId, { number: '4242424242424242', ...card }),
    /** To the period end: renews (or fails the payment), or ends it if scheduled to. */
    advanceSubscription: async (subscriptionId: string, { fail = false } = {}) =>
      advanceSubscription(ctx, store.subscription(subscriptionId), fail),
    setWebhookEndpointDisabled: (disabled: boolean) => dispatcher.setDisabled(disabled),
    /** The event destination's payload style (Workbench): `snapshot` (default) or `thin`. */
    setPayloadStyle: (style: 'snapshot' | 'thin') => void (dispatcher.payloadStyle = style),
    injectFault: (fault: FaultInput) => void faults.add(fault),
    clearFaults: () => faults.clear(),
    /** Moves Stripe's clock forward (object times, portal expiry); signatures use real time. */
    advanceClock: (seconds: number) => store.advanceClock(seconds),
    addPortalConfiguration: (id: string) => void store.account.portalConfigurations.add(id),
    /** Lets customers change plans in a portal configuration (default: the default one) or not. */
    setPortalPlanChanges: (enabled: boolean, id = DEFAULT_PORTAL_CONFIGURATION) =>
      void store.account.portalPlanChangesOff[enabled ? 'delete' : 'add'](id),
    /** The prices a configuration's plan changes offer, as picked in the Dashboard (default: all). */
    setPortalPrices: (prices: string[], id = DEFAULT_PORTAL_CONFIGURATION) =>
      void store.account.portalPrices.set(id, prices),
    /** The endpoint's events or API version, as the Dashboard sets them. */
    configureWebhookEndpoint: (
      changes: Partial<Pick<WebhookEndpointObject, 'enabled_events' | 'api_version'>>,
    ) => void Object.assign(dispatcher.endpoint ?? {}, changes),
  }
}

async function route(
  ctx: AdminContext,
  apiKey: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1')
  const path = url.pathname
  if (path.startsWith('/v1/')) return handleApi(ctx, { apiKey, faults: ctx.faults }, req, res, url)
  const checkout = /^\/checkout\/([^/]+)$/.exec(path)
  if (checkout) return handleCheckoutPage(ctx, req, res, decodeURIComponent(checkout[1]))
  const portal = /^\/portal\/([^/]+)$/.exec(path)
  if (portal) return handlePortalPage(ctx, req, res, url, decodeURIComponent(portal[1]))
  const invoice = /^\/invoices\/([^/]+?)(?:\/pdf)?$/.exec(path)
  if (invoice && (req.method === 'GET' || (req.method === 'POST' && !path.endsWith('/pdf'))))
    return handleInvoicePage(ctx, req, res, url, decodeURIComponent(invoice[1]))
  if (await handleAdmin(ctx, req, res, url)) return
  sendHtml(res, 404, notFound('Not found'))
}

export interface TriggerOptions {
  email?: string
  /** customer.subscription.created: the fixture subscription's metadata. */
  metadata?: Record<string, string>
  /** charge.dispute.created: the disputed payment. */
  paymentIntent?: string
  charge?: string
  /** charge.dispute.closed: the dispute and how it ended (default `lost`). */
  dispute?: string
  disputeStatus?: 'won' | 'lost' | 'warning_closed' | 'prevented'
}

const FLOWS: Record<string, (ctx: BillingContext, options: TriggerOptions) => unknown> = {
  'customer.created': (ctx, { email }) => createCustomer(ctx, { email: email ?? null, name: null }),
  'customer.subscription.created': (ctx, { email, metadata }) =>
    createSubscription(ctx, {
      customer: createCustomer(ctx, { email: email ?? null, name: null }).id,
      price: ctx.store.price(ctx.store.catalog.plans[0].stripe.priceId),
      quantity: 1,
      metadata: metadata ?? {},
      automaticTax: false,
      now: ctx.store.now(),
    }),
  'charge.dispute.created': (ctx, options) => openDispute(ctx, chargeOf(ctx, options)),
  'charge.dispute.closed': (ctx, options) =>
    closeDispute(ctx, options.dispute ?? '', options.disputeStatus ?? 'lost'),
}

/** Runs the flow that produces `type` and returns that event (the first of its type). */
export function trigger(
  ctx: BillingContext,
  type: string,
  options: TriggerOptions = {},
): StripeEvent {
  const flow = FLOWS[type]
  if (!flow) throw new Error(`Unsupported trigger '${type}'. Supported: ${Object.keys(FLOWS)}`)
  const start = ctx.store.events.size
  flow(ctx, options)
  const event = [...ctx.store.events.values()].slice(start).find((e) => e.type === type)
  if (!event) throw new Error(`Trigger '${type}' produced no such event`)
  return event
}
