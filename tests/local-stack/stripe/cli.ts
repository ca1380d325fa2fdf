/**
 * Runs the Stripe emulator on its own: `node --import tsx tests/local-stack/stripe/cli.ts`.
 * Uses the local defaults (port 12111, the app's webhook route on :5173); override with
 * STRIPE_API_URL, STRIPE_WEBHOOK_URL, STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET.
 */
import { LOCAL_DEFAULTS } from '../../../app/env.server'
import { startStripeEmulator } from './index'

const apiUrl = new URL(process.env.STRIPE_API_URL || LOCAL_DEFAULTS.STRIPE_API_URL)
const siteUrl = process.env.SITE_URL || LOCAL_DEFAULTS.SITE_URL

const emulator = await startStripeEmulator({
  port: Number(apiUrl.port || 12111),
  webhookUrl: process.env.STRIPE_WEBHOOK_URL || `${siteUrl}/api/webhooks/stripe`,
  webhookSecret: process.env.STRIPE_WEBHOOK_SECRET || LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
  apiKey: process.env.STRIPE_SECRET_KEY || LOCAL_DEFAULTS.STRIPE_SECRET_KEY,
})
console.log(
  `Stripe emulator on ${emulator.url} (deliveries: ${emulator.publicUrl}/_emulator/deliveries)`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}
