/**
 * Runs the Stripe emulator on its own:
 * `node --import tsx tests/local-stack/stripe/cli.ts [catalog.json]`, seeded with the plans of
 * that catalogue file (the product's is app/billing/catalog.json; without one, the sample
 * ../catalog.json). Uses the local stack's defaults (port 12111, the app's webhook route on
 * :5173); override with STRIPE_API_URL, STRIPE_WEBHOOK_URL, STRIPE_SECRET_KEY and
 * STRIPE_WEBHOOK_SECRET.
 */
import { readCatalogFile } from '../catalog'
import { LOCAL_DEV, LOCAL_STACK_KEYS } from '../defaults'
import { startStripeEmulator } from './index'

const apiUrl = new URL(process.env.STRIPE_API_URL || LOCAL_DEV.stripeApiUrl)
const siteUrl = process.env.SITE_URL || LOCAL_DEV.siteUrl

const emulator = await startStripeEmulator({
  catalog: readCatalogFile(process.argv[2]),
  port: Number(apiUrl.port || 12111),
  webhookUrl: process.env.STRIPE_WEBHOOK_URL || `${siteUrl}/api/webhooks/stripe`,
  webhookSecret: process.env.STRIPE_WEBHOOK_SECRET || LOCAL_STACK_KEYS.stripeWebhookSecret,
  apiKey: process.env.STRIPE_SECRET_KEY || LOCAL_STACK_KEYS.stripeSecretKey,
})
console.log(
  `Stripe emulator on ${emulator.url} (deliveries: ${emulator.publicUrl}/_emulator/deliveries)`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void emulator.close().then(() => process.exit(0))
  })
}
