// The stand-ins are seeded with the catalogue (app/billing/catalog.json) as `npm run dev` does.
import { describe, expect, it } from 'vitest'

import { PLAN_DEFINITIONS } from '../../app/billing/plans'
import { getPolar } from '../../app/billing/polar/client.server'
import { getStripe } from '../../app/billing/stripe/client.server'
import { testAppForFile } from './harness'

const app = testAppForFile()

describe('the stand-ins seeded with the plan catalogue', () => {
  it('sells each plan at Stripe: its product and recurring price, by the catalogue', async () => {
    for (const plan of PLAN_DEFINITIONS) {
      const price = await getStripe().prices.retrieve(plan.stripe.priceId, { expand: ['product'] })
      expect(price).toMatchObject({
        unit_amount: plan.amount,
        currency: plan.currency,
        recurring: { interval: plan.interval },
        active: true,
        product: { id: plan.stripe.productId, name: plan.name, description: plan.description },
      })
    }
    const { data } = await getStripe().prices.list({ limit: 100 })
    expect(data.map((price) => price.id).sort()).toEqual(
      PLAN_DEFINITIONS.map((plan) => plan.stripe.priceId).sort(),
    )
  })

  it('sells each plan at Polar: a recurring product by the catalogue', async () => {
    // The app's token may create checkouts, not list products (as at Polar): a checkout of
    // each plan's product carries that product.
    for (const plan of PLAN_DEFINITIONS) {
      const checkout = await getPolar('checkout').checkouts.create({
        products: [plan.polar.productId],
        success_url: `${app.url}/success?checkout_id={CHECKOUT_ID}`,
      })
      expect(checkout.product).toMatchObject({
        id: plan.polar.productId,
        name: plan.name,
        description: plan.description,
        is_recurring: true,
        recurring_interval: plan.interval,
        prices: [
          expect.objectContaining({
            amount_type: 'fixed',
            price_amount: plan.amount,
            price_currency: plan.currency,
          }),
        ],
      })
    }
  })
})
