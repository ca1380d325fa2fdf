// `npm run stripe:sync-products`
import { errorText, startCommand } from '~/commands.server'

import { syncStripeProducts } from './products.server'

startCommand(['stripe'])
try {
  const result = await syncStripeProducts()
  console.log(`Synced ${result.synced.length} prices: ${result.synced.join(', ')}`)
  for (const mismatch of result.mismatches) console.warn(`Warning: ${mismatch}`)
  process.exit(result.mismatches.length > 0 ? 2 : 0)
} catch (error) {
  console.error(`Sync failed: ${errorText(error)}`)
  process.exit(1)
}
