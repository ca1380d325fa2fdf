import { createPolar, webhooks } from '@polar-sh/sdk/2026-10'

import { LOCAL_CATALOG } from '../catalog'
import { type ReceivedWebhook, startReceiver } from '../stripe/test-support'
import { type PolarEmulatorOptions, startPolarEmulator } from './index'

export const TOKEN = 'polar_oat_local_emulator'
export const SECRET = 'polar_whs_local_emulator_secret'

/** Verifies a received request exactly as the app will: the SDK's `webhooks.validateEvent`. */
export async function verify(webhook: ReceivedWebhook, secret = SECRET) {
  const headers = Object.fromEntries(
    Object.entries(webhook.headers).map(([key, value]) => [key, String(value)]),
  )
  const event = await webhooks.validateEvent(webhook.body, headers, secret)
  return event as unknown as { type: string; api_version: string; data: Record<string, unknown> }
}

export async function setup(options: Partial<PolarEmulatorOptions> = {}) {
  const receiver = await startReceiver()
  const emulator = await startPolarEmulator({
    catalog: LOCAL_CATALOG,
    webhookSecret: SECRET,
    accessToken: TOKEN,
    webhookUrl: receiver.url,
    retry: { attempts: 3, baseDelayMs: 20 },
    invoiceDelayMs: 0,
    ...options,
  })
  const polar = createPolar({ accessToken: options.accessToken ?? TOKEN, baseUrl: emulator.url })
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
