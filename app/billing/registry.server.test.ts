import { afterEach, describe, expect, it } from 'vitest'

import { parseEnv, resetEnvForTests } from '~/env.server'
import { PRODUCTION_ENV } from '~/env.test-support'

import { billingProviders, providerFormTargets } from './registry.server'

/** The production settings without any variable whose name starts with one of `prefixes`. */
const without = (...prefixes: string[]) =>
  Object.fromEntries(
    Object.entries(PRODUCTION_ENV).filter(([name]) => !prefixes.some((p) => name.startsWith(p))),
  )

const SETTINGS = ['BILLING_PROVIDERS', 'STRIPE_API_URL', 'POLAR_API_URL', 'STRIPE_CUSTOM_DOMAIN']
/** Runs the registry under these settings (as the server would after start-up). */
function runWith(settings: Record<string, string | undefined>) {
  for (const name of SETTINGS) {
    const value = settings[name]
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  resetEnvForTests()
}
afterEach(() => runWith({}))

describe('BILLING_PROVIDERS', () => {
  it('runs both providers by default, Stripe first, and then requires both kinds of settings', () => {
    expect(parseEnv(PRODUCTION_ENV).BILLING_PROVIDERS).toEqual(['stripe', 'polar'])
    expect(() => parseEnv(without('POLAR_'))).toThrow(/POLAR_ACCESS_TOKEN: is required but not set/)
    expect(() => parseEnv(without('STRIPE_'))).toThrow(/STRIPE_SECRET_KEY: is required but not set/)
  })

  it('with Stripe only, a production server starts without any Polar variable (and the other way round)', () => {
    const stripeOnly = parseEnv({ ...without('POLAR_'), BILLING_PROVIDERS: 'stripe' })
    expect(stripeOnly.BILLING_PROVIDERS).toEqual(['stripe'])
    expect(stripeOnly.POLAR_ACCESS_TOKEN).toBeUndefined()
    const polarOnly = parseEnv({ ...without('STRIPE_'), BILLING_PROVIDERS: 'polar' })
    expect(polarOnly.BILLING_PROVIDERS).toEqual(['polar'])
    expect(polarOnly.STRIPE_SECRET_KEY).toBeUndefined()
  })

  it('keeps refusing the local stack keys of a provider that runs', () => {
    expect(() =>
      parseEnv({
        ...without('POLAR_'),
        BILLING_PROVIDERS: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_local_emulator',
      }),
    ).toThrow(/STRIPE_SECRET_KEY is the local emulator key/)
  })

  it('refuses an unknown provider, a repeated one and an empty list, naming the setting', () => {
    runWith({ BILLING_PROVIDERS: 'stripe,paddle' })
    expect(() => billingProviders()).toThrow(
      'BILLING_PROVIDERS names "paddle", which is not one of stripe, polar',
    )
    expect(() => parseEnv({ ...PRODUCTION_ENV, BILLING_PROVIDERS: 'stripe,stripe' })).toThrow(
      /BILLING_PROVIDERS: must name each provider once/,
    )
    expect(() => parseEnv({ ...PRODUCTION_ENV, BILLING_PROVIDERS: ',' })).toThrow(
      /BILLING_PROVIDERS/,
    )
  })

  it("orders the pages' providers as listed", () => {
    runWith({ BILLING_PROVIDERS: 'polar,stripe' })
    expect(billingProviders().map((provider) => provider.id)).toEqual(['polar', 'stripe'])
  })
})

describe('providerFormTargets', () => {
  it("allows each running provider's hosted pages, and its emulator's host on both loopback names", () => {
    runWith({ STRIPE_API_URL: 'http://127.0.0.1:12921', POLAR_API_URL: 'http://localhost:12112' })
    expect(providerFormTargets()).toEqual(
      expect.arrayContaining([
        'https://checkout.stripe.com',
        'https://billing.stripe.com',
        'https://*.polar.sh',
        'http://127.0.0.1:12921',
        'http://localhost:12921',
        'http://localhost:12112',
      ]),
    )
  })

  it("allows Stripe's custom domain for Checkout and the portal when one is set", () => {
    runWith({ STRIPE_CUSTOM_DOMAIN: 'https://pay.example.com' })
    expect(providerFormTargets()).toContain('https://pay.example.com')
  })

  it('allows no form target of a provider that does not run', () => {
    runWith({ BILLING_PROVIDERS: 'stripe', POLAR_API_URL: 'http://localhost:12112' })
    const targets = providerFormTargets()
    expect(targets).toContain('https://checkout.stripe.com')
    expect(targets.join(' ')).not.toMatch(/polar|12112/)
  })
})
