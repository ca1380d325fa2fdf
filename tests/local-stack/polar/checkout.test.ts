import { errors, webhooks } from '@polar-sh/sdk/2026-10'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { postForm, setup, TOKEN, verify } from './test-helpers'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const STARTER = catalogPlan(LOCAL_CATALOG, 'starter').polar.productId
let env: Awaited<ReturnType<typeof setup>>

beforeEach(async () => {
  env = await setup()
})
afterEach(async () => {
  await env.close()
})

describe('checkout through the hosted page', () => {
  it('pays through the form and delivers signed events in the order Polar sends them', async () => {
    const { polar, emulator, receiver } = env
    const checkout = await polar.checkouts.create({
      products: [PRO],
      customer_email: 'ada@example.com',
      external_customer_id: 'user-1',
      metadata: { user_id: 'user-1', seats: 3, trial: false },
      success_url: 'http://localhost:5173/success?checkout_id={CHECKOUT_ID}',
    })
    expect(checkout).toMatchObject({
      status: 'open',
      success_url: `http://localhost:5173/success?checkout_id=${checkout.id}`,
      url: `${emulator.url}/checkout/${checkout.client_secret}`,
      total_amount: 2900,
    })
    const html = await (await fetch(checkout.url)).text()
    expect(html).toContain('$29.00 / month')
    expect(html).toContain('value="ada@example.com"')

    const paid = await postForm(checkout.url, { email: 'ada@example.com', name: 'Ada Lovelace' })
    expect(paid.status).toBe(303)
    expect(paid.headers.get('location')).toBe(checkout.success_url)
    expect((await postForm(checkout.url, {})).status).toBe(409)

    await emulator.idle()
    expect(receiver.types()).toEqual([
      'checkout.created',
      'checkout.updated',
      'customer.created',
      'subscription.created',
      'subscription.active',
      'order.created',
      'order.updated',
      'order.paid',
      'checkout.updated',
    ])
    const events = await Promise.all(receiver.received.map((r) => verify(r)))
    const ids = receiver.received.map((r) => r.headers['webhook-id'])
    expect(new Set(ids).size).toBe(ids.length)
    const data = (type: string) => events.find((e) => e.type === type)!.data
    expect(data('customer.created')).toMatchObject({ external_id: 'user-1', name: 'Ada Lovelace' })
    expect(data('subscription.created')).toMatchObject({
      status: 'active',
      product_id: PRO,
      checkout_id: checkout.id,
      metadata: { user_id: 'user-1', seats: 3, trial: false },
    })
    expect(data('order.paid')).toMatchObject({
      billing_reason: 'subscription_create',
      net_amount: 2900,
      billing_name: 'Ada Lovelace',
      metadata: { user_id: 'user-1', seats: 3, trial: false },
    })
    expect(events.at(-1)?.data).toMatchObject({ status: 'succeeded' })
  })

  it('signs with Standard Webhooks: another secret or a changed body does not verify', async () => {
    await env.polar.checkouts.create({ products: [PRO] })
    await env.emulator.idle()
    const [delivery] = env.receiver.received
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)
    await expect(verify(delivery, 'polar_whs_wrong')).rejects.toBeInstanceOf(
      webhooks.PolarWebhookVerificationError,
    )
    await expect(
      verify({ ...delivery, body: delivery.body.replace('open', 'paid') }),
    ).rejects.toThrow('No matching signature found')
    await expect(verify(delivery)).resolves.toMatchObject({ api_version: '2026-10' })
  })

  it('sells no second subscription to a customer holding one, unless the organization allows it', async () => {
    const { polar, emulator } = env
    const first = await env.subscribe(STARTER, 'user-2')
    const second = await polar.checkouts.create({ products: [PRO], external_customer_id: 'user-2' })
    await expect(emulator.completeCheckout(second.client_secret)).rejects.toMatchObject({
      status: 403,
      error: 'AlreadyActiveSubscriptionError',
    })
    emulator.setSubscriptionSettings({ allow_multiple_subscriptions: true })
    expect((await emulator.completeCheckout(second.id)).customer.id).toBe(first.customer.id)
  })

  it('deleting a customer revokes its subscriptions, refuses its open checkouts and frees its email', async () => {
    const { polar, emulator } = env
    const customer = await polar.customers.create({ email: 'c@example.com', external_id: 'u-3' })
    const paid = await polar.checkouts.create({ products: [PRO], customer_id: customer.id })
    const { subscription } = await emulator.completeCheckout(paid.id)
    const open = await polar.checkouts.create({ products: [STARTER], customer_id: customer.id })
    await polar.customers.deleteExternal('u-3')
    expect(emulator.state.subscriptions.get(subscription.id)?.status).toBe('canceled')
    await expect(emulator.completeCheckout(open.id)).rejects.toMatchObject({
      status: 409,
      error: 'CheckoutCustomerDeleted',
    })
    await expect(polar.customers.deleteExternal('u-3')).rejects.toBeInstanceOf(
      errors.ResourceNotFound,
    )
    const again = await polar.customers.create({ email: 'c@example.com', external_id: 'u-3' })
    expect(again.id).not.toBe(customer.id)
  })
})

describe('validation (422 in FastAPI shape)', () => {
  const post = (path: string, body: unknown) =>
    fetch(`${env.emulator.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it.each([
    ['nested metadata', { products: [PRO], metadata: { user: { id: 1 } } }, ['metadata', 'user']],
    [
      'an empty metadata value',
      { products: [PRO], metadata: { a: 'b', c: '' } },
      ['metadata', 'c'],
    ],
    [
      'a key over 40 characters',
      { products: [PRO], metadata: { ['k'.repeat(41)]: 'v' } },
      ['metadata', 'k'.repeat(41)],
    ],
    ['an unknown product', { products: ['00000000-0000-4000-8000-000000000000'] }, ['products', 0]],
  ])('refuses a checkout with %s', async (_name, input, loc) => {
    const response = await post('/v1/checkouts/', input)
    expect(response.status).toBe(422)
    const { detail } = (await response.json()) as { detail: { loc: unknown[] }[] }
    expect(detail.map((d) => d.loc)).toEqual([['body', ...loc]])
  })

  it('refuses a taken email or external id, and changing an external id once set', async () => {
    const { polar } = env
    const customer = await polar.customers.create({ email: 'a@b.c', external_id: 'x-1' })
    for (const input of [
      { email: 'A@b.c', external_id: 'x-2' },
      { email: 'd@e.f', external_id: 'x-1' },
      { email: 'g@h.i', metadata: { source: '' } },
    ])
      await expect(polar.customers.create(input)).rejects.toBeInstanceOf(errors.HTTPValidationError)
    const update = polar.customers.update(customer.id, { external_id: 'x-3' })
    await expect(update).rejects.toMatchObject({
      error: { detail: [{ msg: "The external ID can't be updated once set." }] },
    })
    const session = polar.customerSessions.create({ external_customer_id: 'nobody' })
    await expect(session).rejects.toMatchObject({
      error: { detail: [{ loc: ['body', 'external_customer_id'], input: 'nobody' }] },
    })
  })
})
