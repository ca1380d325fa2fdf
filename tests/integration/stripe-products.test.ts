import { describe, expect, it } from 'vitest'

import { PLAN_DEFINITIONS } from '../../app/billing/plans'
import { syncStripeProducts } from '../../app/billing/stripe/products.server'
import { adminClient, testAppForFile, withEnv } from './harness'

const app = testAppForFile()

async function rows() {
  const { data } = await adminClient(app).from('stripe_products').select('*').order('amount')
  return data ?? []
}

describe('syncStripeProducts', () => {
  it('writes one row per plan price, read back from Stripe, and is idempotent', async () => {
    expect(await syncStripeProducts()).toMatchObject({ mismatches: [] })
    await syncStripeProducts()
    const synced = await rows()
    expect(
      synced.map((row) => ({
        name: row.name,
        amount: row.amount,
        interval: row.billing_interval,
        active: row.active,
      })),
    ).toEqual(
      PLAN_DEFINITIONS.map((plan) => ({
        name: plan.name,
        amount: plan.amount,
        interval: plan.interval,
        active: true,
      })),
    )
    expect(synced.every((row) => String(row.stripe_product_id).startsWith('prod_'))).toBe(true)
  })

  it('marks rows of prices no plan uses inactive, and reports a price that disagrees with the plans', async () => {
    await adminClient(app).from('stripe_products').insert({
      stripe_price_id: 'price_retired',
      stripe_product_id: 'prod_old',
      plan_key: 'legacy',
      name: 'Legacy',
      amount: 500,
      currency: 'usd',
      billing_interval: 'month',
    })
    // Swap the price ids: each plan now points at a Stripe price with the other amount.
    const swapped = {
      STRIPE_PRICE_STARTER: 'price_pro_monthly',
      STRIPE_PRICE_PRO: 'price_starter_monthly',
    }
    const result = await withEnv(swapped, syncStripeProducts)
    expect(result.mismatches).toEqual([
      expect.stringContaining(
        'Starter: Stripe price price_pro_monthly is 2900 usd/month, the catalogue says 900 usd/month',
      ),
      expect.stringContaining(
        'Pro: Stripe price price_starter_monthly is 900 usd/month, the catalogue says 2900 usd/month',
      ),
    ])
    const byId = Object.fromEntries((await rows()).map((row) => [row.stripe_price_id, row.active]))
    expect(byId).toEqual({
      price_retired: false,
      price_starter_monthly: true,
      price_pro_monthly: true,
    })
  })

  it('fails loudly for a price id Stripe does not know', async () => {
    await expect(
      withEnv({ STRIPE_PRICE_PRO: 'price_does_not_exist' }, syncStripeProducts),
    ).rejects.toThrow(/No such price/)
  })
})
