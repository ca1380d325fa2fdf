/**
 * Local Stripe emulator: the API subset the app calls, hosted checkout and billing portal
 * pages, and signed webhook delivery, so the product runs offline with the real `stripe` SDK.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import type { Catalog } from '../catalog'
import { type AdminContext, handleAdmin } from './admin'
import { handleApi } from './api'
import { type CardDetails, type CheckoutResult, completeCheckout } from './checkout'
import { handleCheckoutPage, notFound } from './checkout-page'
import { EventBus } from './events'
import { FaultInjector, type FaultInput } from './faults'
import { sendHtml, sendJson } from './http'
import { handleInvoicePage } from './invoice-page'
import { handlePortalPage } from './portal'
import { DEFAULT_PORTAL_CONFIGURATION, Store, type StripeEvent } from './store'
import { advanceSubscription } from './subscriptions'
import { trigger, type TriggerOptions } from './triggers'
import {
  type Delivery,
  type DeliveryOptions,
  type RetryPolicy,
  type RetrySchedule,
  TEST_MODE_RETRIES,
  WebhookDispatcher,
  type WebhookEndpointObject,
} from './webhooks'

export type { FaultInput } from './faults'
export type { StripeEvent } from './store'
export type { TriggerOptions } from './triggers'
export { TRIGGER_TYPES } from './triggers'
export type { Delivery, DeliveryOptions, RetryPolicy, RetrySchedule } from './webhooks'
export { TEST_MODE_RETRIES } from './webhooks'
export { signPayload } from './webhooks'

export interface StripeEmulatorOptions {
  /** The products and prices to seed (see ../catalog.ts). */
  catalog: Catalog
  /** 0 or undefined picks a free port; development uses 12111. */
  port?: number
  /** Where signed events are POSTed; may also be set later with `setWebhookUrl`. */
  webhookUrl?: string
  /** Signing secret (`whsec_…`). */
  webhookSecret: string
  /** The secret key requests must carry; without it any `sk_test_`/`rk_test_` key is accepted. */
  apiKey?: string
  /**
   * Delivery retries on non-2xx or network errors: `{attempts, baseDelayMs}` (doubling, in
   * real time), or a schedule in emulated seconds on a compressed clock. Default: Stripe's
   * test mode, three retries over a few hours (`TEST_MODE_RETRIES`).
   */
  retry?: RetryPolicy | RetrySchedule
  /** Ordered (default) or shuffled, partly duplicated delivery (see `DeliveryOptions`). */
  delivery?: DeliveryOptions
  /** Per-attempt webhook timeout (default 10 s). */
  deliveryTimeoutMs?: number
  /** Base URL used in hosted page links (default `http://localhost:<port>`). */
  publicUrl?: string
  /**
   * Stripe Tax is set up on the account: `automatic_tax[enabled]=true` is accepted. Off by
   * default, like a new account (Stripe then answers `stripe_tax_inactive`).
   */
  taxActive?: boolean
  /** Customer portal configuration ids (`bpc_…`) the account has besides its default one. */
  portalConfigurations?: string[]
  /**
   * The account's website (Settings → Public details, `business_profile.url`): the hosted
   * invoice page links back to it, as Stripe's does. None by default, like a new account.
   */
  businessUrl?: string
}

export interface StripeEmulator {
  /** API base, e.g. `http://127.0.0.1:12111`. */
  url: string
  port: number
  /** Base URL of hosted pages (checkout, portal, invoices). */
  publicUrl: string
  close(): Promise<void>
  setWebhookUrl(url: string): void
  /** Every delivery attempt, oldest first. */
  deliveries(): Delivery[]
  /** Every event created, oldest first. */
  events(): StripeEvent[]
  /** Resolves when no delivery is queued or in flight (immediately when no webhook URL is set). */
  idle(): Promise<void>
  /** Like `stripe trigger <type>`: runs the flow and returns the event of that type. */
  trigger(type: string, options?: TriggerOptions): Promise<StripeEvent>
  /** Pays a checkout session as the hosted page does (card defaults to 4242…). */
  completeCheckout(sessionId: string, card?: Partial<CardDetails>): Promise<CheckoutResult>
  /** Moves a subscription to its period end: renews it (or fails payment), or ends it if scheduled. */
  advanceSubscription(subscriptionId: string, options?: { fail?: boolean }): Promise<StripeEvent[]>
  resend(eventId: string): void
  /** The webhook endpoint (Stripe's `webhook_endpoint` object), once a URL is set. */
  webhookEndpoint(): WebhookEndpointObject | undefined
  /** Disables (nothing is sent, pending retries are dropped) or enables the endpoint. */
  setWebhookEndpointDisabled(disabled: boolean): void
  /**
   * The event destination's payload style, as chosen in Stripe's Workbench: `snapshot` (the
   * default: each event with its object) or `thin` (`v2.core.event`: the object's id only).
   */
  setPayloadStyle(style: 'snapshot' | 'thin'): void
  injectFault(fault: FaultInput): void
  clearFaults(): void
  /** Moves the emulator's clock forward (object timestamps, portal expiry); signatures use real time. */
  advanceClock(seconds: number): void
  /** Adds a customer portal configuration id to the account, as the dashboard creates one. */
  addPortalConfiguration(id: string): void
  /** Lets customers change plans in the portal configuration (default: the account's default) or not. */
  setPortalPlanChanges(enabled: boolean, id?: string): void
  /** The prices a configuration's plan changes offer, as picked in the Dashboard (default: all). */
  setPortalPrices(prices: string[], id?: string): void
  /**
   * Changes the webhook endpoint as the Dashboard would: its events, or the API version it
   * was created with (Stripe fixes that at creation; a test stands for another endpoint).
   */
  configureWebhookEndpoint(
    changes: Partial<Pick<WebhookEndpointObject, 'enabled_events' | 'api_version'>>,
  ): void
}

/** Starts an emulator bound to 127.0.0.1. */
export async function startStripeEmulator(options: StripeEmulatorOptions): Promise<StripeEmulator> {
  const store = new Store(options.catalog)
  store.account.taxActive = options.taxActive ?? false
  store.account.businessUrl = options.businessUrl ?? null
  for (const id of options.portalConfigurations ?? []) store.account.portalConfigurations.add(id)
  const dispatcher = new WebhookDispatcher(
    options.webhookUrl,
    options.webhookSecret,
    options.retry ?? TEST_MODE_RETRIES,
    store.deliveryState,
    () => store.now(),
    options.deliveryTimeoutMs,
    options.delivery,
  )
  const bus = new EventBus(store, dispatcher)
  const faults = new FaultInjector()
  const ctx: AdminContext = { store, bus, dispatcher, faults, publicUrl: options.publicUrl ?? '' }

  const server = createServer((req, res) => {
    route(ctx, options.apiKey, req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy()
      sendJson(res, 500, { error: { type: 'api_error', message: String(error) } })
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  ctx.publicUrl = (options.publicUrl ?? `http://localhost:${port}`).replace(/\/+$/, '')

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    publicUrl: ctx.publicUrl,
    async close() {
      dispatcher.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
    setWebhookUrl: (url) => dispatcher.setUrl(url),
    deliveries: () => dispatcher.deliveries(),
    events: () => [...store.events.values()].map((event) => structuredClone(event)),
    idle: () => dispatcher.idle(),
    trigger: async (type, triggerOptions) => trigger(ctx, type, triggerOptions),
    completeCheckout: async (sessionId, card = {}) =>
      completeCheckout(ctx, sessionId, { number: '4242424242424242', ...card }),
    advanceSubscription: async (subscriptionId, advanceOptions = {}) =>
      advanceSubscription(ctx, store.subscription(subscriptionId), advanceOptions.fail ?? false),
    resend: (eventId) => bus.resend(eventId),
    webhookEndpoint: () => (dispatcher.endpoint ? { ...dispatcher.endpoint } : undefined),
    setWebhookEndpointDisabled: (disabled) => dispatcher.setDisabled(disabled),
    setPayloadStyle: (style) => void (dispatcher.payloadStyle = style),
    injectFault: (fault) => void faults.add(fault),
    clearFaults: () => faults.clear(),
    advanceClock: (seconds) => store.advanceClock(seconds),
    addPortalConfiguration: (id) => void store.account.portalConfigurations.add(id),
    setPortalPlanChanges: (enabled, id = DEFAULT_PORTAL_CONFIGURATION) =>
      void store.account.portalPlanChangesOff[enabled ? 'delete' : 'add'](id),
    setPortalPrices: (prices, id = DEFAULT_PORTAL_CONFIGURATION) =>
      void store.account.portalPrices.set(id, prices),
    configureWebhookEndpoint: (changes) => void Object.assign(dispatcher.endpoint ?? {}, changes),
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
