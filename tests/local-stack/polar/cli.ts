/**
 * Runs the Polar emulator alone: `npx tsx tests/local-stack/polar/cli.ts [catalog.json]`,
 * seeded with the plans of that catalogue file (the product's is app/billing/catalog.json;
 * without one, the sample ../catalog.json). Uses the local stack's defaults unless POLAR_*
 * variables say otherwise.
 */
import { readCatalogFile } from '../catalog'
import { LOCAL_DEV, LOCAL_STACK_KEYS } from '../defaults'
import { startPolarEmulator } from './index'

const apiUrl = new URL(process.env.POLAR_API_URL || LOCAL_DEV.polarApiUrl)
const siteUrl = process.env.SITE_URL || LOCAL_DEV.siteUrl

const emulator = await startPolarEmulator({
  catalog: readCatalogFile(process.argv[2]),
  port: Number(apiUrl.port || 12112),
  publicUrl: apiUrl.origin,
  accessToken: process.env.POLAR_ACCESS_TOKEN || LOCAL_STACK_KEYS.polarAccessToken,
  webhookSecret: process.env.POLAR_WEBHOOK_SECRET || LOCAL_STACK_KEYS.polarWebhookSecret,
  webhookUrl: process.env.POLAR_EMULATOR_WEBHOOK_URL || `${siteUrl}/api/webhooks/polar`,
  // The app runs on this machine: the stand-in's local mode (http and loopback webhook URLs).
  localWebhooks: true,
})
console.log(`Polar emulator on ${emulator.url} (public ${apiUrl.origin})`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void emulator.close().then(() => process.exit(0)))
}
