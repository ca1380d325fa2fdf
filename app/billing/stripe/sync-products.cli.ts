// `npm run stripe:sync-products`
import { existsSync } from 'node:fs'

import { describeProviderUrl, getEnv } from '~/env.server'

import { syncStripeProducts } from './products.server'

if (existsSync('.env')) process.loadEnvFile('.env')

try {
  console.log(`Stripe API: ${describeProviderUrl('STRIPE_API_URL', process.env, getEnv())}`)
  const result = await syncStripeProducts()
  console.log(`Synced ${result.synced.length} prices: ${result.synced.join(', ')}`)
  for (const mismatch of result.mismatches) console.warn(`Warning: ${mismatch}`)
  process.exit(result.mismatches.length > 0 ? 2 : 0)
} catch (error) {
  console.error(`Sync failed: ${(error as Error).message}`)
  process.exit(1)
}
