import { describe, expect, it } from 'vitest'
import { LOCAL_PLAN_IDS, PLAN_DEFINITIONS } from '../../app/billing/plans'
import { LOCAL_DEFAULTS, LOCAL_SUPABASE_NEW_KEYS } from '../../app/env.server'
import { LOCAL_CATALOG, parseCatalog } from '../local-stack/catalog'
import { LOCAL_DEV, LOCAL_STACK_KEYS } from '../local-stack/defaults'

/**
 * The local stack never imports the app: it is seeded from its own catalogue
 * (tests/local-stack/catalog.json) and signs with its own keys. The app's local defaults must
 * name the same plans, ids and keys, or development and the tests would miss each other.
 */
describe('the local stack and the app agree', () => {
  it('seeds the app plans, in the same order, with the same names, prices and features', () => {
    expect(LOCAL_CATALOG.plans.map(({ stripe: _stripe, polar: _polar, ...plan }) => plan)).toEqual(
      PLAN_DEFINITIONS.map((plan) => ({
        key: plan.key,
        name: plan.name,
        description: plan.description,
        amount: plan.amount,
        currency: plan.currency,
        interval: plan.interval,
        features: plan.features,
      })),
    )
  })

  it("uses the app's local plan ids for every Stripe product, Stripe price and Polar product", () => {
    expect(
      Object.fromEntries(
        LOCAL_CATALOG.plans.map((plan) => [
          plan.key,
          {
            stripeProductId: plan.stripe.productId,
            stripePriceId: plan.stripe.priceId,
            polarProductId: plan.polar.productId,
          },
        ]),
      ),
    ).toEqual(LOCAL_PLAN_IDS)
    const byKey = Object.fromEntries(LOCAL_CATALOG.plans.map((plan) => [plan.key, plan]))
    expect({
      STRIPE_PRICE_STARTER: byKey.starter.stripe.priceId,
      STRIPE_PRICE_PRO: byKey.pro.stripe.priceId,
      POLAR_PRODUCT_STARTER: byKey.starter.polar.productId,
      POLAR_PRODUCT_PRO: byKey.pro.polar.productId,
    }).toEqual({
      STRIPE_PRICE_STARTER: LOCAL_DEFAULTS.STRIPE_PRICE_STARTER,
      STRIPE_PRICE_PRO: LOCAL_DEFAULTS.STRIPE_PRICE_PRO,
      POLAR_PRODUCT_STARTER: LOCAL_DEFAULTS.POLAR_PRODUCT_STARTER,
      POLAR_PRODUCT_PRO: LOCAL_DEFAULTS.POLAR_PRODUCT_PRO,
    })
  })

  it("accepts the app's local keys and listens where the app's local URLs point", () => {
    expect({
      SUPABASE_ANON_KEY: LOCAL_STACK_KEYS.supabaseAnonKey,
      SUPABASE_SERVICE_ROLE_KEY: LOCAL_STACK_KEYS.supabaseServiceRoleKey,
      publishable: LOCAL_STACK_KEYS.supabasePublishableKey,
      secret: LOCAL_STACK_KEYS.supabaseSecretKey,
      STRIPE_SECRET_KEY: LOCAL_STACK_KEYS.stripeSecretKey,
      STRIPE_WEBHOOK_SECRET: LOCAL_STACK_KEYS.stripeWebhookSecret,
      POLAR_ACCESS_TOKEN: LOCAL_STACK_KEYS.polarAccessToken,
      POLAR_WEBHOOK_SECRET: LOCAL_STACK_KEYS.polarWebhookSecret,
      SITE_URL: LOCAL_DEV.siteUrl,
      SUPABASE_URL: LOCAL_DEV.supabaseUrl,
      STRIPE_API_URL: LOCAL_DEV.stripeApiUrl,
      POLAR_API_URL: LOCAL_DEV.polarApiUrl,
    }).toEqual({
      SUPABASE_ANON_KEY: LOCAL_DEFAULTS.SUPABASE_ANON_KEY,
      SUPABASE_SERVICE_ROLE_KEY: LOCAL_DEFAULTS.SUPABASE_SERVICE_ROLE_KEY,
      // The new-style keys, which the production checks refuse as well.
      publishable: LOCAL_SUPABASE_NEW_KEYS.publishable,
      secret: LOCAL_SUPABASE_NEW_KEYS.secret,
      STRIPE_SECRET_KEY: LOCAL_DEFAULTS.STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
      POLAR_ACCESS_TOKEN: LOCAL_DEFAULTS.POLAR_ACCESS_TOKEN,
      POLAR_WEBHOOK_SECRET: LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET,
      SITE_URL: LOCAL_DEFAULTS.SITE_URL,
      SUPABASE_URL: LOCAL_DEFAULTS.SUPABASE_URL,
      STRIPE_API_URL: LOCAL_DEFAULTS.STRIPE_API_URL,
      POLAR_API_URL: LOCAL_DEFAULTS.POLAR_API_URL,
    })
  })
})

describe('parseCatalog', () => {
  it('refuses a catalogue with a missing id, a bad interval or an id used twice', () => {
    const plan = LOCAL_CATALOG.plans[0]
    expect(() => parseCatalog({ plans: [] })).toThrow(/non-empty/)
    expect(() => parseCatalog({ plans: [{ ...plan, polar: {} }] })).toThrow(/polar.productId/)
    expect(() => parseCatalog({ plans: [{ ...plan, interval: 'week' }] })).toThrow(/interval/)
    expect(() => parseCatalog({ plans: [plan, plan] })).toThrow(/used twice/)
  })
})
