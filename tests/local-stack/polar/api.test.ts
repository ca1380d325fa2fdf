import { PolarClientError, PolarNetworkError, PolarServerError } from '@polar-sh/sdk'
import { createPolar, errors } from '@polar-sh/sdk/2026-10'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { setup } from './test-helpers'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const MISSING = '00000000-0000-4000-8000-000000000000'
let env: Awaited<ReturnType<typeof setup>>

beforeEach(async () => {
  env = await setup()
})
afterEach(async () => {
  await env.close()
})

describe('authentication and lookups', () => {
  it('answers 401 invalid_token for a token it does not know, 401 Unauthorized without one', async () => {
    const wrong = createPolar({ accessToken: 'polar_oat_wrong', baseUrl: env.emulator.url })
    const error = await wrong.products.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PolarClientError)
    expect((error as PolarClientError).statusCode).toBe(401)
    // The SDK has no typed 401 class here: `error` is the raw response text (authlib's).
    expect(JSON.parse((error as PolarClientError).error as string)).toEqual({
      error: 'invalid_token',
      error_description:
        'The access token provided is expired, revoked, malformed, or invalid for other reasons.',
    })
    const bare = await fetch(`${env.emulator.url}/v1/products/`)
    expect(bare.status).toBe(401)
    expect(await bare.json()).toEqual({ error: 'Unauthorized', detail: 'Unauthorized' })
    expect(bare.headers.get('www-authenticate')).toBe('Bearer realm="polar"')
  })

  it('serves the seeded plans as products', async () => {
    const products = await env.polar.products.list()
    expect(products.pagination).toEqual({ total_count: 2, max_page: 1 })
    expect(products.items.map((p) => [p.id, p.name, p.prices[0]])).toEqual([
      [
        catalogPlan(LOCAL_CATALOG, 'starter').polar.productId,
        'Starter',
        expect.objectContaining({
          price_amount: 900,
          amount_type: 'fixed',
          product_id: catalogPlan(LOCAL_CATALOG, 'starter').polar.productId,
        }),
      ],
      [PRO, 'Pro', expect.objectContaining({ price_amount: 2900, price_currency: 'usd' })],
    ])
    expect(await env.polar.products.get(PRO)).toMatchObject({
      name: 'Pro',
      is_recurring: true,
      recurring_interval: 'month',
    })
  })

  it('answers 404 ResourceNotFound for unknown ids and 422 for malformed ones', async () => {
    const calls = [
      () => env.polar.checkouts.get(MISSING),
      () => env.polar.customers.get(MISSING),
      () => env.polar.subscriptions.get(MISSING),
      () => env.polar.orders.get(MISSING),
      () => env.polar.orders.invoice(MISSING),
      () => env.polar.orders.generateInvoice(MISSING),
      () => env.polar.products.get(MISSING),
    ]
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(errors.ResourceNotFound)
      expect((error as InstanceType<typeof errors.ResourceNotFound>).error).toEqual({
        error: 'ResourceNotFound',
        detail: expect.stringContaining('not found'),
      })
    }
    const malformed = await env.polar.orders.get('not-a-uuid').catch((e: unknown) => e)
    expect(malformed).toBeInstanceOf(errors.HTTPValidationError)
    expect((malformed as InstanceType<typeof errors.HTTPValidationError>).error).toMatchObject({
      detail: [{ type: 'uuid_parsing', loc: ['path', 'id'], input: 'not-a-uuid' }],
    })
  })

  it('redirects list paths without a trailing slash like FastAPI', async () => {
    const response = await fetch(`${env.emulator.url}/v1/products?limit=1`, {
      headers: { authorization: 'Bearer polar_oat_local_emulator' },
      redirect: 'manual',
    })
    expect(response.status).toBe(307)
    expect(response.headers.get('location')).toBe('/v1/products/?limit=1')
  })
})

describe('fault injection', () => {
  const addFault = (fault: Parameters<typeof env.emulator.addFault>[0]) =>
    env.emulator.addFault(fault)

  it('fails the next N matching calls, then recovers', async () => {
    await addFault({ method: 'POST', path: '/v1/checkouts', status: 503, count: 2 })
    for (let i = 0; i < 2; i++) {
      const error = await env.polar.checkouts.create({ products: [PRO] }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(PolarServerError)
      expect((error as Error).message).toContain('503')
      expect((error as Error).message).toContain('InjectedFault')
    }
    expect(await env.polar.products.list()).toMatchObject({ pagination: { total_count: 2 } })
    expect((await env.polar.checkouts.create({ products: [PRO] })).status).toBe('open')
  })

  it('matches regular expressions, custom bodies and delays (an SDK timeout)', async () => {
    await addFault({
      path: '^/v1/orders/[^/]+/invoice$',
      status: 409,
      count: 1,
      body: { error: 'OrderNotEligibleForInvoice', detail: 'forced' },
    })
    const forced = await env.polar.orders.generateInvoice(MISSING).catch((e: unknown) => e)
    expect(forced).toBeInstanceOf(errors.OrderNotEligibleForInvoice)
    expect((forced as PolarClientError).error).toEqual({
      error: 'OrderNotEligibleForInvoice',
      detail: 'forced',
    })

    await addFault({ path: '/v1/customer-sessions/', delayMs: 1500, count: 1 })
    const slow = createPolar({
      accessToken: 'polar_oat_local_emulator',
      baseUrl: env.emulator.url,
      timeout: 0.2,
    })
    const timedOut = await slow.customerSessions
      .create({ external_customer_id: 'x' })
      .catch((e: unknown) => e)
    expect(timedOut).toBeInstanceOf(PolarNetworkError)
  })
})
