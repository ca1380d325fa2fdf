/**
 * Runs the Polar emulator alone: `npx tsx tests/local-stack/polar/cli.ts`.
 * Uses the app's local defaults unless POLAR_* variables say otherwise.
 */
import { LOCAL_DEFAULTS } from '../../../app/env.server'
import { startPolarEmulator } from './index'

const apiUrl = new URL(process.env.POLAR_API_URL || LOCAL_DEFAULTS.POLAR_API_URL)
const siteUrl = process.env.SITE_URL || LOCAL_DEFAULTS.SITE_URL

const emulator = await startPolarEmulator({
  port: Number(apiUrl.port || 12112),
  publicUrl: apiUrl.origin,
  accessToken: process.env.POLAR_ACCESS_TOKEN || LOCAL_DEFAULTS.POLAR_ACCESS_TOKEN,
  webhookSecret: process.env.POLAR_WEBHOOK_SECRET || LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET,
  webhookUrl: process.env.POLAR_EMULATOR_WEBHOOK_URL || `${siteUrl}/api/webhooks/polar`,
})
console.log(`Polar emulator on ${emulator.url} (public ${apiUrl.origin})`)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void emulator.close().then(() => process.exit(0)))
}
