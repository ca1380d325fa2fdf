import { afterEach, describe, expect, it } from 'vitest'

import { resetEnvForTests } from '~/env.server'

import catalogJson from './catalog.json'
import { parseCatalog, PLAN_CATALOG, planIdSettings } from './plans'
import { getPlans } from './plans.server'
import { catalogPlan } from './plans.test-support'

const [starter, pro] = catalogJson.plans

/** A catalogue of the product's two plans with `change` applied to the second. */
const withPro = (change: Record<string, unknown>) => ({ plans: [starter, { ...pro, ...change }] })

describe('the plan catalogue (app/billing/catalog.json)', () => {
  it('loads the product plans, in order, with their local ids', () => {
    expect(PLAN_CATALOG.plans.map((plan) => plan.key)).toEqual(['starter', 'pro'])
    expect(catalogPlan('pro')).toMatchObject({
      name: 'Pro',
      amount: 2900,
      currency: 'usd',
      interval: 'month',
      highlighted: true,
      stripe: { productId: 'prod_pro', priceId: 'price_pro_monthly' },
    })
    expect(() => catalogPlan('team')).toThrow('The plan catalogue has no plan "team"')
  })

  it('names each wrong field, all at once', () => {
    expect(() =>
      parseCatalog(withPro({ amount: 29.5, interval: 'week', stripe: { productId: 'prod_pro' } })),
    ).toThrow(
      /^Invalid plan catalogue \(app\/billing\/catalog\.json\):[\s\S]*must be a whole number of minor units \(cents\)\n\s+→ at plans\[1\]\.amount[\s\S]*must be "month" or "year"\n\s+→ at plans\[1\]\.interval[\s\S]*→ at plans\[1\]\.stripe\.priceId/,
    )
  })

  // Ids of the wrong kind (a product id never stands for a price), a key, name or id two plans
  // share, an empty catalogue, an unknown field, a key that cannot name a setting.
  it.each<[unknown, RegExp]>([
    [
      withPro({ stripe: { productId: 'prod_pro', priceId: 'prod_pro' } }),
      /must be a Stripe price id \(price_…\), not a product id\n\s+→ at plans\[1\]\.stripe\.priceId/,
    ],
    [
      withPro({ stripe: { productId: 'price_x', priceId: 'price_pro_monthly' } }),
      /must be a Stripe product id \(prod_…\)\n\s+→ at plans\[1\]\.stripe\.productId/,
    ],
    [
      withPro({ polar: { productId: 'pro' } }),
      /must be a Polar product id \(a UUID\)\n\s+→ at plans\[1\]\.polar\.productId/,
    ],
    [withPro({ key: 'starter' }), /key starter is an earlier plan's too\n\s+→ at plans\[1\]/],
    [withPro({ name: 'Starter' }), /name Starter is an earlier plan's too/],
    [
      withPro({ polar: starter.polar }),
      /5b0d3f4e-7c1a-4c4e-9f0a-0000000000a1 is an earlier plan's too/,
    ],
    [{ plans: [] }, /must name at least one plan/],
    [withPro({ price: 29 }), /Unrecognized key: "price"/],
    [withPro({ key: 'Pro-Plus' }), /must be lower-case letters and digits/],
    [withPro({ currency: 'USD' }), /ISO 4217/],
    [null, /Invalid plan catalogue/],
  ])('refuses %j', (catalogue, message) => {
    expect(() => parseCatalog(catalogue)).toThrow(message)
  })

  it("names each plan's settings after its key, as each provider's settings say", () => {
    expect(planIdSettings([catalogPlan('starter')])).toEqual({
      STRIPE_PRICE_STARTER: starter.stripe.priceId,
      POLAR_PRODUCT_STARTER: starter.polar.productId,
    })
  })
})

describe('getPlans', () => {
  afterEach(() => {
    delete process.env.STRIPE_PRICE_PRO
    delete process.env.POLAR_PRODUCT_STARTER
    resetEnvForTests()
  })

  it("takes each plan from the catalogue and its ids from the plan's settings", () => {
    process.env.STRIPE_PRICE_PRO = 'price_1QProOfThisAccount'
    process.env.POLAR_PRODUCT_STARTER = '0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b'
    resetEnvForTests()
    expect(getPlans().map(({ key, name, amount, ids }) => ({ key, name, amount, ids }))).toEqual([
      {
        key: 'starter',
        name: 'Starter',
        amount: 900,
        ids: { stripe: starter.stripe.priceId, polar: '0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b' },
      },
      {
        key: 'pro',
        name: 'Pro',
        amount: 2900,
        ids: { stripe: 'price_1QProOfThisAccount', polar: pro.polar.productId },
      },
    ])
  })
})
