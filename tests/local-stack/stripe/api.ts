import type { IncomingMessage, ServerResponse } from 'node:http'

import { BodyTooLarge, matchRoute } from '../http'
import { type ApiCall, routes } from './api-routes'
import { applyExpand, expandPaths } from './expand'
import type { FaultInjector } from './faults'
import { decodeForm, type Params, randomId, readBody, sendJson, StripeApiError } from './http'
import type { BillingContext } from './subscriptions'

export interface ApiOptions {
  apiKey?: string
  faults: FaultInjector
}

export async function handleApi(
  ctx: BillingContext,
  options: ApiOptions,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
) {
  const requestId = randomId('req', 14)
  const method = req.method ?? 'GET'
  // Its Date is Stripe's clock, the one its objects and events read (advanced in tests).
  const date = new Date(ctx.store.now() * 1000).toUTCString()
  const headers = { 'request-id': requestId, 'stripe-version': '2026-10-28.endive', date }
  const reply = (status: number, body: unknown, extra: Record<string, string> = {}) =>
    sendJson(res, status, body, { ...headers, ...extra })
  try {
    const apiKey = authenticate(req, options.apiKey)
    const fault = options.faults.take(method, url.pathname)
    if (fault) {
      if (fault.delayMs > 0) await delay(fault.delayMs, res)
      if (fault.status !== undefined) return reply(fault.status, fault.body)
    }
    const body = await readBody(req)
    const params: Params = { ...decodeForm(url.searchParams), ...decodeForm(body) }
    const idempotencyKey = method === 'POST' ? req.headers['idempotency-key'] : undefined
    const key = typeof idempotencyKey === 'string' ? idempotencyKey : null
    const storeKey = key ? `${apiKey} ${key}` : null
    const fingerprint = `${method} ${url.pathname} ${body}`
    const previous = storeKey ? ctx.store.idempotency.get(storeKey) : undefined
    if (previous) {
      if (previous.fingerprint !== fingerprint) {
        throw new StripeApiError(
          400,
          'idempotency_error',
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
        )
      }
      return reply(previous.status, previous.body, { 'idempotent-replayed': 'true' })
    }
    const call: ApiCall = {
      method,
      path: url.pathname,
      params,
      request: { id: requestId, idempotency_key: key },
    }
    const result = route(ctx, call)
    const rendered = applyExpand(ctx.store, result.body, expandPaths(params))
    if (storeKey && result.status < 400) {
      ctx.store.idempotency.set(storeKey, { fingerprint, status: result.status, body: rendered })
    }
    reply(result.status, rendered)
  } catch (error) {
    if (error instanceof StripeApiError) return reply(error.status, error.toJSON())
    if (error instanceof BodyTooLarge)
      return reply(413, { error: { type: 'invalid_request_error', message: error.message } })
    const message = error instanceof Error ? error.message : String(error)
    reply(500, { error: { type: 'api_error', message: `Emulator error: ${message}` } })
  }
}

function route(ctx: BillingContext, call: ApiCall) {
  const { found } = matchRoute(routes, call.method, call.path)
  if (found) return { status: 200, body: found.handler(ctx, call, found.values) }
  throw new StripeApiError(
    404,
    'invalid_request_error',
    `Unrecognized request URL (${call.method}: ${call.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
  )
}

function authenticate(req: IncomingMessage, expected: string | undefined) {
  const key = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1]
  if (!key) {
    throw new StripeApiError(
      401,
      'invalid_request_error',
      "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
    )
  }
  const valid = expected ? key === expected : /^(sk|rk)_test_/.test(key)
  if (!valid) {
    const masked = `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`
    throw new StripeApiError(401, 'invalid_request_error', `Invalid API Key provided: ${masked}`)
  }
  return key
}

function delay(ms: number, res: ServerResponse) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    res.on('close', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}
