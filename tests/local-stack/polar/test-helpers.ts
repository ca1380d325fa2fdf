import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

import { createPolar, webhooks } from '@polar-sh/sdk/2026-10'

import { LOCAL_CATALOG } from '../catalog'
import { type PolarEmulatorOptions, startPolarEmulator } from './index'

export const TOKEN = 'polar_oat_local_emulator'
export const SECRET = 'polar_whs_local_emulator_secret'

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders
  body: string
}

/** A local webhook endpoint that records requests and answers 200 unless `respond` says otherwise. */
async function startReceiver() {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      receiver.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() })
      res.writeHead(receiver.respond(String(req.headers['webhook-id'])) ?? 200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/polar`,
    received: [] as ReceivedWebhook[],
    /** The status for a request by its `webhook-id`; undefined answers 200. */
    respond: (_webhookId: string): number | undefined => undefined,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return receiver
}

/** Verifies a received request exactly as the app will: the SDK's `webhooks.validateEvent`. */
export async function verify(webhook: ReceivedWebhook, secret = SECRET) {
  const headers = Object.fromEntries(
    Object.entries(webhook.headers).map(([key, value]) => [key, String(value)]),
  )
  const event = await webhooks.validateEvent(webhook.body, headers, secret)
  return event as unknown as { type: string; api_version: string; data: Record<string, unknown> }
}

/** Emulator + receiver + real SDK client pointed at the emulator. */
export async function setup(options: Partial<PolarEmulatorOptions> = {}) {
  const receiver = await startReceiver()
  const emulator = await startPolarEmulator({
    catalog: LOCAL_CATALOG,
    webhookSecret: SECRET,
    accessToken: TOKEN,
    webhookUrl: receiver.url,
    retry: { attempts: 3, baseDelayMs: 20 },
    invoiceDelayMs: 0,
    // The receiver is on loopback: the stand-in's local mode.
    localWebhooks: true,
    ...options,
  })
  const polar = createPolar({ accessToken: TOKEN, baseUrl: emulator.url })
  /** A paid subscription (`completeCheckout`), its events delivered and forgotten. */
  const subscribe = async (product: string) => {
    const checkout = await polar.checkouts.create({
      products: [product],
      external_customer_id: 'user-1',
      metadata: { user_id: 'user-1' },
    })
    const done = await emulator.completeCheckout(checkout.id)
    await emulator.idle()
    receiver.received.length = 0
    return done
  }
  return {
    emulator,
    receiver,
    polar,
    subscribe,
    close: async () => {
      await emulator.close()
      await receiver.close()
    },
  }
}
