import { getPlans } from '~/billing/plans.server'
import { database } from '~/lib/database/database.server'

import { getStripe } from './client.server'

/** Each plan's price is read back from Stripe, so a wrong price id fails loudly. */
export async function syncStripeProducts() {
  const stripe = getStripe()
  const admin = database()
  // `mismatches`: plans whose Stripe price disagrees with the catalogue.
  const result = { synced: [] as string[], mismatches: [] as string[] }
  const rows = []
  for (const plan of getPlans()) {
    const price = await stripe.prices.retrieve(plan.ids.stripe)
    const productId = typeof price.product === 'string' ? price.product : price.product.id
    const interval = price.recurring?.interval ?? 'one_time'
    if (
      price.unit_amount !== plan.amount ||
      price.currency !== plan.currency ||
      interval !== plan.interval
    ) {
      result.mismatches.push(
        `${plan.name}: Stripe price ${price.id} is ${price.unit_amount} ${price.currency}/${interval}, the catalogue says ${plan.amount} ${plan.currency}/${plan.interval}`,
      )
    }
    rows.push({
      stripe_price_id: price.id,
      stripe_product_id: productId,
      plan_key: plan.key,
      name: plan.name,
      amount: price.unit_amount ?? plan.amount,
      currency: price.currency,
      billing_interval: interval,
      active: price.active,
    })
    result.synced.push(price.id)
  }
  const upsert = await admin.from('stripe_products').upsert(rows, { onConflict: 'stripe_price_id' })
  if (upsert.error) throw new Error(`stripe_products upsert failed: ${upsert.error.message}`)
  const stale = await admin
    .from('stripe_products')
    .update({ active: false })
    .not('stripe_price_id', 'in', `(${result.synced.map((id) => `"${id}"`).join(',')})`)
  if (stale.error) throw new Error(`stripe_products update failed: ${stale.error.message}`)
  return result
}
