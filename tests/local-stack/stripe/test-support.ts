import type { IncomingHttpHeaders } from 'node:http'

import Stripe from 'stripe'

import { LOCAL_CATALOG } from '../catalog'
import { listen, readText, sendJson } from '../http'
import { startStripeEmulator, type StripeEmulator, type StripeEmulatorOptions } from './index'

export const API_KEY = 'sk_test_local_emulator'
export const WEBHOOK_SECRET = 'whsec_local_emulator_secret'

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders
  body: string
}

/** A webhook endpoint that records requests; `respond` picks each answer's status. */
export async function startReceiver(
  respond = (_index: number, _headers: IncomingHttpHeaders) => 200,
) {
  const server = await listen(
    undefined,
    async (req, res) => {
      const body = await readText(req)
      const index = receiver.received.length
      const status = receiver.respond(index, req.headers)
      receiver.received.push({ headers: req.headers, body })
      const answer = status < 300 ? { received: true } : { error: `failing #${index}` }
      sendJson(res, status, answer)
    },
    (error, res) => sendJson(res, 500, { error: String(error) }),
  )
  const receiver = {
    url: `http://127.0.0.1:${server.port}/webhooks`,
    received: [] as ReceivedWebhook[],
    respond,
    close: () => server.close(),
  }
  return receiver
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>

export function sdkFor(emulator: StripeEmulator, key = API_KEY, timeout?: number) {
  return new Stripe(key, {
    host: '127.0.0.1',
    port: emulator.port,
    protocol: 'http',
    maxNetworkRetries: 0,
    ...(timeout ? { timeout } : {}),
  })
}

export async function setupStack(
  options: Partial<StripeEmulatorOptions> = {},
  respond?: (index: number) => number,
) {
  const receiver = await startReceiver(respond)
  const emulator = await startStripeEmulator({
    catalog: LOCAL_CATALOG,
    webhookSecret: WEBHOOK_SECRET,
    apiKey: API_KEY,
    webhookUrl: receiver.url,
    retry: { attempts: 4, baseDelayMs: 10 },
    ...options,
  })
  const stripe = sdkFor(emulator)
  return {
    emulator,
    stripe,
    receiver,
    async teardown() {
      await emulator.close()
      await receiver.close()
    },
  }
}

/** Verifies every received webhook with the real SDK and returns the events in arrival order. */
export function verifiedEvents(stripe: Stripe, receiver: Receiver) {
  return receiver.received.map((request) =>
    stripe.webhooks.constructEvent(
      request.body,
      String(request.headers['stripe-signature']),
      WEBHOOK_SECRET,
    ),
  )
}

export function createProSession(
  stripe: Stripe,
  extra: Partial<Stripe.Checkout.SessionCreateParams> = {},
) {
  return stripe.checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price: 'price_pro_monthly', quantity: 1 }],
    customer_email: 'ada@example.com',
    client_reference_id: 'user-1',
    metadata: { user_id: 'user-1', user_email: 'ada@example.com' },
    subscription_data: { metadata: { user_id: 'user-1', user_email: 'ada@example.com' } },
    success_url: 'http://localhost:5173/success?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://localhost:5173/pricing?canceled=true',
    allow_promotion_codes: true,
    ...extra,
  })
}

/** A paid Pro subscription, paid as the hosted checkout page pays it; returns its ids. */
export async function subscribeThroughCheckout(stripe: Stripe, emulator: StripeEmulator) {
  const paid = await emulator.completeCheckout((await createProSession(stripe)).id)
  if (!paid.ok) throw new Error(paid.message)
  await emulator.idle()
  return {
    subscriptionId: paid.session.subscription as string,
    customerId: paid.session.customer as string,
  }
}
