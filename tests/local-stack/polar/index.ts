import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import type { Catalog } from '../catalog'
import { registerAdmin } from './admin'
import { registerApi } from './api'
import { PRODUCT_TOKEN_SCOPES, webhookUrlProblem } from './auth'
import { completeCheckout, type PaymentDetails } from './checkout-flow'
import { checkoutJson } from './checkout-objects'
import { EmulatorContext } from './context'
import { FaultInjector } from './faults'
import { Router } from './http'
import { customerJson, orderJson, subscriptionJson } from './objects'
import { registerPages } from './pages'
import { createRequestHandler } from './server'
import { PolarState } from './state'
import { runTrigger, type TriggerOptions, type TriggerResult } from './triggers'
import type { Delivery, Fault, OrganizationRecord } from './types'
import { type EndpointState, POLAR_DELIVERY, WebhookDispatcher } from './webhooks'

export { PRODUCT_TOKEN_SCOPES, SERVED_VERSIONS } from './auth'
export { LOCAL_ORGANIZATION_ID, PolarState, setClockOffset } from './state'
export type { TriggerOptions, TriggerResult } from './triggers'
export type { Delivery, DeliveryAttempt, Fault } from './types'
export { type EndpointState, POLAR_DELIVERY, signWebhook } from './webhooks'

export interface PolarEmulatorOptions {
  /** The products to seed (see ../catalog.ts). */
  catalog: Catalog
  /** 0 or undefined picks a free port; development uses 12112. */
  port?: number
  /** Where events go, e.g. http://localhost:5173/api/webhooks/polar; may be set later. */
  webhookUrl?: string
  /** Standard Webhooks secret; the HMAC key is its UTF-8 bytes exactly as configured. */
  webhookSecret: string
  /** Which Polar server this one stands for (its pages and state say so). Default sandbox. */
  environment?: 'sandbox' | 'production'
  /** This server's organization access token; other tokens get 401. Undefined accepts any token. */
  accessToken?: string
  /** The token's scopes (default: the product's, `PRODUCT_TOKEN_SCOPES`); others get 403. */
  accessTokenScopes?: readonly string[]
  /**
   * Delivery attempts per event (Polar: 10) and the backoff factor (Polar: 2000 ms); every
   * other delivery delay is scaled by `baseDelayMs / 2000` (a compressed clock).
   */
  retry?: { attempts: number; baseDelayMs: number }
  /** Consecutive failed events that disable the webhook endpoint (Polar: 10). */
  failureThreshold?: number
  /**
   * The stand-in's local mode: webhook URLs may be http and point at loopback or private
   * addresses. Off by default: like Polar, only https URLs on public hosts are accepted.
   */
  localWebhooks?: boolean
  /** Base of the URLs handed out (checkout, portal, invoices); defaults to `url`. */
  publicUrl?: string
  /** Time from `POST /v1/orders/{id}/invoice` until the invoice exists (GET 404 before). Default 1000. */
  invoiceDelayMs?: number
}

export interface CompletedCheckoutJson {
  checkout: ReturnType<typeof checkoutJson>
  customer: ReturnType<typeof customerJson>
  subscription: ReturnType<typeof subscriptionJson>
  order: ReturnType<typeof orderJson>
}

export interface PolarEmulator {
  url: string
  port: number
  environment: 'sandbox' | 'production'
  close(): Promise<void>
  /** Sets the endpoint's URL; throws when Polar would refuse it (see `localWebhooks`). */
  setWebhookUrl(url: string | undefined): void
  /** The webhook endpoint: its URL and whether it is enabled. */
  endpoint(): EndpointState
  /** Enables (or disables) the endpoint, as the dashboard's switch does. */
  setEndpointEnabled(enabled: boolean): void
  /** The event types the endpoint is sent (default: every type the emulator emits). */
  setEndpointEvents(events: string[]): void
  /** Every event emitted so far with its delivery attempts, oldest first. */
  deliveries(): Delivery[]
  /** Resolves when no delivery is in flight or waiting for a retry. */
  idle(): Promise<void>
  /** `renewal`, `refund`, `cancel`, `uncancel`, `revoke`, or an event type to re-send an object. */
  trigger(type: string, options?: TriggerOptions): Promise<TriggerResult>
  /** Pays an open checkout (by id or client secret) as the hosted page's "Pay now" does. */
  completeCheckout(
    idOrClientSecret: string,
    details?: PaymentDetails,
  ): Promise<CompletedCheckoutJson>
  /** Queues an event again with the same webhook-id. */
  resend(eventId: string): void
  addFault(fault: Fault): void
  clearFaults(): void
  /** The in-memory state, for assertions (treat as read-only). */
  state: PolarState
  /** API requests received so far, by `METHOD /path`. */
  apiCalls(): Record<string, number>
  /** The organization's subscription settings, as the dashboard's Settings > Subscriptions sets them. */
  setSubscriptionSettings(settings: Partial<OrganizationRecord['subscription_settings']>): void
  /** The sales tax added to orders billed to `country`, in percent (0 removes it). */
  setTaxRate(country: string, percent: number): void
}

function listen(server: Server, port: number) {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

/** Starts the Polar emulator on 127.0.0.1, seeded with the catalogue's products. */
export async function startPolarEmulator(options: PolarEmulatorOptions): Promise<PolarEmulator> {
  const localMode = options.localWebhooks === true
  const checkUrl = (value: string | undefined) => {
    const problem = value === undefined ? null : webhookUrlProblem(value, localMode)
    if (problem) throw new Error(`Webhook URL refused (${problem}): ${value}`)
  }
  checkUrl(options.webhookUrl)
  const server = createServer()
  const port = await listen(server, options.port ?? 0)
  const url = `http://127.0.0.1:${port}`
  const publicUrl = (options.publicUrl ?? url).replace(/\/+$/, '')
  const state = new PolarState(options.catalog)
  const webhooks = new WebhookDispatcher({
    secret: options.webhookSecret,
    url: options.webhookUrl,
    attempts: Math.max(1, options.retry?.attempts ?? POLAR_DELIVERY.attempts),
    baseDelayMs: options.retry?.baseDelayMs ?? POLAR_DELIVERY.minBackoffMs,
    failureThreshold: options.failureThreshold,
  })
  const ctx = new EmulatorContext(state, webhooks, publicUrl, options.invoiceDelayMs ?? 1000)
  const faults = new FaultInjector()
  const router = new Router()
  registerApi(router, ctx)
  registerPages(router, ctx)
  const environment = options.environment ?? 'sandbox'
  registerAdmin(router, ctx, environment)
  const tokens =
    options.accessToken === undefined
      ? undefined
      : new Map([[options.accessToken, options.accessTokenScopes ?? PRODUCT_TOKEN_SCOPES]])
  server.on('request', createRequestHandler({ router, ctx, faults, tokens }))

  return {
    url,
    port,
    environment,
    state,
    async close() {
      webhooks.close()
      ctx.clearTimers()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
    setWebhookUrl: (value) => {
      checkUrl(value)
      webhooks.setUrl(value)
    },
    endpoint: () => webhooks.endpoint(),
    setEndpointEnabled: (enabled) => webhooks.setEnabled(enabled),
    setEndpointEvents: (events) => webhooks.setEvents(events),
    deliveries: () => webhooks.list(),
    idle: () => webhooks.idle(),
    trigger: async (type, triggerOptions) => runTrigger(ctx, type, triggerOptions),
    async completeCheckout(key, details) {
      const checkout = state.checkoutByKey(key)
      if (!checkout) throw new Error(`Unknown checkout ${key}`)
      const done = completeCheckout(ctx, checkout, details)
      return {
        checkout: checkoutJson(state, done.checkout, publicUrl),
        customer: customerJson(state, done.customer),
        subscription: subscriptionJson(state, done.subscription),
        order: orderJson(state, done.order),
      }
    },
    resend: (eventId) => {
      if (!webhooks.resend(eventId)) throw new Error(`Unknown event ${eventId}`)
    },
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    apiCalls: () => Object.fromEntries(ctx.apiCalls),
    setSubscriptionSettings: (settings) =>
      Object.assign(state.organization.subscription_settings, settings),
    setTaxRate: (country, percent) => state.taxRates.set(country, percent),
  }
}
