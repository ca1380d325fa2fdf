import { afterEach, beforeAll, describe, expect, it } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { DEFAULT_BILLING_PROVIDERS, PROVIDER_SETTINGS } from '../../app/billing/provider-settings'
import { resetEnvForTests } from '../../app/env.server'
import { createSignedInUser, testAppForFile } from './harness'

// With BILLING_PROVIDERS naming one provider, the other's spec endpoints answer 404.
const app = testAppForFile()
let cookie: string

beforeAll(async () => {
  cookie = (await createSignedInUser(app)).cookie
})
afterEach(() => {
  delete process.env.BILLING_PROVIDERS
  resetEnvForTests()
})

function runOnly(provider: string) {
  process.env.BILLING_PROVIDERS = provider
  resetEnvForTests()
}

const page = async (path: string) =>
  (await fetch(`${app.url}${path}`, { headers: { cookie } })).text()

/** Each endpoint of a provider, as its spec door is called (method, path, body). */
const ENDPOINTS: Record<string, [string, string, string | null][]> = {
  stripe: [
    ['POST', '/api/checkout_sessions', `price_id=${catalogPlan('pro').stripe.priceId}`],
    ['POST', '/api/customer_portal', ''],
    ['POST', '/api/webhooks/stripe', '{}'],
    ['POST', '/api/webhooks/providera', '{}'],
  ],
  polar: [
    ['GET', `/api/checkout?products=${catalogPlan('pro').polar.productId}`, null],
    ['GET', '/api/portal', null],
    ['POST', '/api/webhooks/polar', '{}'],
    ['POST', '/api/webhooks/providerb', '{}'],
  ],
  testpay: [['POST', '/api/webhooks/testpay', '{}']],
}

it('knows the endpoints of every provider in the code', () => {
  expect(Object.keys(ENDPOINTS)).toEqual(PROVIDER_SETTINGS.map(({ id }) => id))
})

const defaults = DEFAULT_BILLING_PROVIDERS.split(',')
const NOT_FOUND = { status: 404, body: JSON.stringify({ error: 'Not found' }) }

async function call([method, path, body]: readonly [string, string, string | null]) {
  const response = await fetch(`${app.url}${path}`, {
    method,
    redirect: 'manual',
    headers: {
      cookie,
      origin: app.url,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body,
  })
  return { status: response.status, body: await response.text() }
}

// Each provider as the pages say it pays (its adapter's label), and a word only the other's says.
describe.each([
  ['stripe', 'polar', 'Pay by card', 'Polar'],
  ['polar', 'stripe', 'Pay with Polar', 'by card'],
] as const)('BILLING_PROVIDERS=%s', (running, other, runningLabel, otherLabel) => {
  it(`offers only "${runningLabel}" on the pricing and billing pages`, async () => {
    runOnly(running)
    const pricing = await page('/pricing')
    expect(pricing).toContain(`Subscribe to Pro: </span>${runningLabel}`)
    expect(pricing).not.toContain(otherLabel)
    expect(await page('/dashboard/settings/billing')).not.toContain(otherLabel)
  })

  it(`answers 404 on every endpoint of ${other}, and not on ${running}'s`, async () => {
    runOnly(running)
    for (const endpoint of ENDPOINTS[other])
      expect(await call(endpoint), endpoint[1]).toEqual(NOT_FOUND)
    // Its own answers (a checkout, "No subscription found", a signature refused).
    for (const endpoint of ENDPOINTS[running])
      expect(await call(endpoint), endpoint[1]).not.toEqual(NOT_FOUND)
  })
})

it('offers both by default, Stripe first; one added later is off until named', async () => {
  const pricing = await page('/pricing')
  const later = Object.entries(ENDPOINTS).filter(([id]) => !defaults.includes(id))
  for (const endpoint of later.flatMap(([, endpoints]) => endpoints))
    expect(await call(endpoint), endpoint[1]).toEqual(NOT_FOUND)
  expect(pricing.indexOf('Subscribe to Pro: </span>Pay by card')).toBeGreaterThan(0)
  expect(pricing.indexOf('Subscribe to Pro: </span>Pay with Polar')).toBeGreaterThan(
    pricing.indexOf('Subscribe to Pro: </span>Pay by card'),
  )
})
