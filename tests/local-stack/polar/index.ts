import type { IncomingMessage, ServerResponse } from 'node:http'

import type { Catalog } from '../catalog'
import { BodyTooLarge, FaultRegistry, listen, parseForm, readText, RouteTable } from '../http'
import { registerApi } from './api'
import { apiVersion, authorize, PRODUCT_TOKEN_SCOPES } from './auth'
import { completeCheckout, type PaymentDetails } from './checkout-flow'
import { ApiError, type Handler, sendJson, ValidationFailed } from './http'
import { checkoutJson, customerJson, orderJson, subscriptionJson } from './objects'
import { registerPages } from './pages'
import { EmulatorContext, PolarState } from './state'
import { runTrigger, type TriggerOptions } from './triggers'
import type { Fault, OrganizationRecord } from './types'
import { POLAR_DELIVERY, WebhookDispatcher } from './webhooks'

export { setClockOffset } from './state'
export type { Delivery } from './types'
export { POLAR_DELIVERY, signWebhook } from './webhooks'

export interface PolarEmulatorOptions {
  catalog: Catalog
  /** 0 or undefined picks a free port; development uses 12112. */
  port?: number
  webhookUrl?: string
  /** Standard Webhooks secret; the HMAC key is its UTF-8 bytes exactly as configured. */
  webhookSecret: string
  /** Which Polar server this one stands for (its home page says so). Default sandbox. */
  environment?: 'sandbox' | 'production'
  accessToken: string
  /** The token's scopes (default: the product's, `PRODUCT_TOKEN_SCOPES`); others get 403. */
  accessTokenScopes?: readonly string[]
  /**
   * Delivery attempts per event (Polar: 10) and the backoff factor (Polar: 2000 ms); every
   * other delivery delay is scaled by `baseDelayMs / 2000` (a compressed clock).
   */
  retry?: { attempts: number; baseDelayMs: number }
  /** Time from `POST /v1/orders/{id}/invoice` until the invoice exists (GET 404 before). Default 1000. */
  invoiceDelayMs?: number
}

export type PolarEmulator = Awaited<ReturnType<typeof startPolarEmulator>>

export async function startPolarEmulator(options: PolarEmulatorOptions) {
  const server = await listen(options.port, handle, (error, res) => {
    if (error instanceof ApiError)
      return sendJson(res, error.status, { error: error.error, detail: error.detail })
    if (error instanceof ValidationFailed) return sendJson(res, 422, { detail: error.detail })
    if (error instanceof BodyTooLarge)
      return sendJson(res, 413, { error: 'RequestEntityTooLarge', detail: error.message })
    console.error('[polar-emulator]', error)
    sendJson(res, 500, { error: 'InternalServerError', detail: String(error) })
  })
  const { port } = server
  const url = `http://127.0.0.1:${port}`
  const state = new PolarState(options.catalog)
  const webhooks = new WebhookDispatcher({
    secret: options.webhookSecret,
    url: options.webhookUrl,
    attempts: Math.max(1, options.retry?.attempts ?? POLAR_DELIVERY.attempts),
    baseDelayMs: options.retry?.baseDelayMs ?? POLAR_DELIVERY.minBackoffMs,
  })
  const ctx = new EmulatorContext(state, webhooks, url, options.invoiceDelayMs ?? 1000)
  const faults = new FaultRegistry<Fault>()
  const router = new RouteTable<Handler>()
  registerApi(router, ctx)
  registerPages(router, ctx, options.environment ?? 'sandbox')
  const scopes = options.accessTokenScopes ?? PRODUCT_TOKEN_SCOPES

  async function handle(incoming: IncomingMessage, res: ServerResponse) {
    const { pathname, searchParams } = new URL(incoming.url ?? '/', 'http://localhost')
    const method = (incoming.method ?? 'GET').toUpperCase()
    const raw = await readText(incoming)
    if (pathname.startsWith('/v1/')) {
      const call = `${method} ${pathname}`
      ctx.apiCalls.set(call, (ctx.apiCalls.get(call) ?? 0) + 1)
      const fault = faults.take(method, pathname)?.fault
      if (fault?.delayMs) await new Promise<void>((resolve) => ctx.later(fault.delayMs!, resolve))
      if (fault?.status) {
        const detail = `Injected ${fault.status} for ${call}`
        return sendJson(res, fault.status, fault.body ?? { error: 'InjectedFault', detail })
      }
      const version = apiVersion(incoming)
      if (!version) return sendJson(res, 404, { detail: 'Not Found' })
      res.setHeader('polar-version', version)
      const auth = authorize(incoming, method, pathname, options.accessToken, scopes)
      if (auth) return sendJson(res, auth.status, auth.body, auth.headers)
    }
    const { found } = router.match(method, pathname)
    if (!found) return sendJson(res, 404, { detail: 'Not Found' })
    const isForm = (incoming.headers['content-type'] ?? '').includes('x-www-form-urlencoded')
    await found.handler(
      {
        query: searchParams,
        params: found.params,
        isForm,
        body: parseBody(raw, isForm),
      },
      res,
    )
  }

  return {
    url,
    port,
    state,
    async close() {
      webhooks.close()
      ctx.clearTimers()
      await server.close()
    },
    setWebhookUrl: (value: string | undefined) => webhooks.setUrl(value),
    endpoint: () => webhooks.endpoint(),
    setEndpointEnabled: (enabled: boolean) => webhooks.setEnabled(enabled),
    /** The event types the endpoint is sent (default: every type the emulator emits). */
    setEndpointEvents: (events: string[]) => webhooks.setEvents(events),
    deliveries: () => webhooks.list(),
    idle: () => webhooks.idle(),
    trigger: async (type: string, triggerOptions?: TriggerOptions) =>
      runTrigger(ctx, type, triggerOptions),
    /** Pays an open checkout (by id or client secret) as the hosted page's "Pay now" does. */
    async completeCheckout(key: string, details?: PaymentDetails) {
      const checkout = state.checkoutByKey(key)
      if (!checkout) throw new Error(`Unknown checkout ${key}`)
      const done = completeCheckout(ctx, checkout, details)
      return {
        checkout: checkoutJson(state, done.checkout, url),
        customer: customerJson(state, done.customer),
        subscription: subscriptionJson(state, done.subscription),
        order: orderJson(state, done.order),
      }
    },
    resend(eventId: string) {
      if (!webhooks.resend(eventId)) throw new Error(`Unknown event ${eventId}`)
    },
    /** The next `count` API calls matching `method` and `path` fail with `status` or wait `delayMs`. */
    addFault: (fault: Fault) => faults.add(fault, fault.count),
    clearFaults: () => faults.clear(),
    apiCalls: () => Object.fromEntries(ctx.apiCalls),
    setSubscriptionSettings: (settings: Partial<OrganizationRecord['subscription_settings']>) =>
      Object.assign(state.organization.subscription_settings, settings),
    /** The sales tax added to orders billed to `country`, in percent (0 removes it). */
    setTaxRate: (country: string, percent: number) => state.taxRates.set(country, percent),
  }
}

/** A JSON or form body; malformed JSON is FastAPI's 422 `json_invalid`. */
function parseBody(raw: string, isForm: boolean): unknown {
  if (raw === '') return undefined
  if (isForm) return parseForm(raw)
  try {
    return JSON.parse(raw)
  } catch {
    throw new ValidationFailed([
      {
        type: 'json_invalid',
        loc: ['body', 0],
        msg: 'JSON decode error',
        input: {},
      },
    ])
  }
}
