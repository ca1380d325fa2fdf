import type Stripe from 'stripe'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { setupStack, verifiedEvents } from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>

beforeEach(async () => {
  stack = await setupStack()
})
afterEach(async () => {
  await stack.teardown()
})

const valid: Stripe.PriceCreateParams = {
  currency: 'usd',
  product: 'prod_pro',
  unit_amount: 4900,
  recurring: { interval: 'year' },
}

describe('POST /v1/prices', () => {
  it('creates a recurring price for an existing product and announces it', async () => {
    const price = await stack.stripe.prices.create({
      ...valid,
      nickname: 'Pro yearly',
      lookup_key: 'pro_yearly',
      metadata: { plan: 'pro' },
    })
    expect(price).toMatchObject({
      id: expect.stringMatching(/^price_/),
      object: 'price',
      active: true,
      currency: 'usd',
      product: 'prod_pro',
      unit_amount: 4900,
      type: 'recurring',
      recurring: { interval: 'year', interval_count: 1, usage_type: 'licensed' },
      nickname: 'Pro yearly',
      lookup_key: 'pro_yearly',
      metadata: { plan: 'pro' },
      tax_behavior: 'unspecified',
    })
    expect(String(price.unit_amount_decimal)).toBe('4900')
    expect(await stack.stripe.prices.retrieve(price.id)).toEqual(price)
    const listed = await stack.stripe.prices.list({ lookup_keys: ['pro_yearly'] })
    expect(listed.data.map((entry) => entry.id)).toEqual([price.id])
    await stack.emulator.idle()
    const events = verifiedEvents(stack.stripe, stack.receiver)
    expect(events.map((event) => event.type)).toEqual(['price.created'])
    expect(events[0].data.object).toMatchObject({ id: price.id, unit_amount_decimal: '4900' })
  })

  it('creates the product too from product_data', async () => {
    const price = await stack.stripe.prices.create({
      currency: 'EUR',
      product_data: { name: 'Team', metadata: { plan: 'team' } },
      unit_amount: 1200,
      recurring: { interval: 'month', interval_count: 3 },
    })
    expect(price).toMatchObject({ currency: 'eur', recurring: { interval_count: 3 } })
    const product = await stack.stripe.products.retrieve(price.product as string)
    expect(product).toMatchObject({ name: 'Team', active: true, metadata: { plan: 'team' } })
    await stack.emulator.idle()
    const types = verifiedEvents(stack.stripe, stack.receiver).map((event) => event.type)
    expect(types).toEqual(['product.created', 'price.created'])
  })

  it('moves a lookup key only when transfer_lookup_key is set', async () => {
    await expect(
      stack.stripe.prices.create({ ...valid, lookup_key: 'pro_monthly' }),
    ).rejects.toMatchObject({
      statusCode: 400,
      param: 'lookup_key',
      message: 'A price (`price_pro_monthly`) already uses that lookup key.',
    })
    const moved = await stack.stripe.prices.create({
      ...valid,
      lookup_key: 'pro_monthly',
      transfer_lookup_key: true,
    })
    expect(moved.lookup_key).toBe('pro_monthly')
    expect((await stack.stripe.prices.retrieve('price_pro_monthly')).lookup_key).toBeNull()
  })

  const refusals: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'a missing currency',
      { currency: undefined },
      {
        param: 'currency',
        code: 'parameter_missing',
        message: 'Missing required param: currency.',
      },
    ],
    [
      'an unknown currency',
      { currency: 'xyz' },
      { param: 'currency', message: expect.stringMatching(/^Invalid currency: xyz\. Stripe/) },
    ],
    [
      'neither product nor product_data',
      { product: undefined },
      {
        param: 'product',
        message: 'You must specify either `product` or `product_data` when creating a price.',
      },
    ],
    [
      'both product and product_data',
      { product_data: { name: 'Other' } },
      { param: 'product_data', message: expect.stringMatching(/only specify one of/) },
    ],
    [
      'product_data without a name',
      { product: undefined, product_data: { metadata: { a: 'b' } } },
      { param: 'product_data[name]', code: 'parameter_missing' },
    ],
    [
      'an unknown product',
      { product: 'prod_nope' },
      { param: 'product', code: 'resource_missing', message: "No such product: 'prod_nope'" },
    ],
    [
      'a missing unit_amount',
      { unit_amount: undefined },
      { param: 'unit_amount', code: 'parameter_missing' },
    ],
    [
      'a unit_amount that is not an integer',
      { unit_amount: '12.5' },
      { param: 'unit_amount', code: 'parameter_invalid_integer', message: 'Invalid integer: 12.5' },
    ],
    [
      'a negative unit_amount',
      { unit_amount: -1 },
      { param: 'unit_amount', message: 'This value must be greater than or equal to 0.' },
    ],
    [
      'an unknown interval',
      { recurring: { interval: 'fortnight' } },
      {
        param: 'recurring[interval]',
        message: 'Invalid recurring[interval]: must be one of day, month, week, or year',
      },
    ],
    [
      'an interval longer than three years',
      { recurring: { interval: 'month', interval_count: 37 } },
      { param: 'recurring[interval_count]' },
    ],
    [
      'an unknown parameter',
      { colour: 'blue' },
      { param: 'colour', code: 'parameter_unknown', message: 'Received unknown parameter: colour' },
    ],
    [
      'a tiered price (not emulated)',
      { tiers_mode: 'graduated' },
      { param: 'tiers_mode', message: expect.stringMatching(/emulator does not support/) },
    ],
  ]

  it.each(refusals)('refuses %s with 400 and writes nothing', async (_name, change, error) => {
    const before = (await stack.stripe.prices.list({ limit: 100 })).data.length
    const params = { ...valid, ...change } as unknown as Stripe.PriceCreateParams
    await expect(stack.stripe.prices.create(params)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      raw: { type: 'invalid_request_error' },
      ...error,
    })
    expect((await stack.stripe.prices.list({ limit: 100 })).data).toHaveLength(before)
    expect((await stack.stripe.products.list({ limit: 100 })).data).toHaveLength(2)
    expect((await stack.stripe.events.list()).data).toHaveLength(0)
  })
})
