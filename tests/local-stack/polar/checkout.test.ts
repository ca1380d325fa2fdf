import { errors, webhooks } from '@polar-sh/sdk/2026-10'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { setup, submitCheckoutForm, verify } from './test-helpers'

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
  it('creates a checkout with metadata, pays it via the form and delivers verified events in order', async () => {
    const { polar, emulator, receiver } = env
    const checkout = await polar.checkouts.create({
      products: [PRO],
      customer_email: 'ada@example.com',
      external_customer_id: 'user-1',
      metadata: { user_id: 'user-1', seats: 3, trial: false },
      customer_metadata: { user_id: 'user-1' },
      success_url: 'http://localhost:5173/success?checkout_id={CHECKOUT_ID}',
    })
    expect(checkout.status).toBe('open')
    expect(checkout.success_url).toBe(`http://localhost:5173/success?checkout_id=${checkout.id}`)
    expect(checkout.url).toBe(`${emulator.url}/checkout/${checkout.client_secret}`)
    expect(checkout.metadata).toEqual({ user_id: 'user-1', seats: 3, trial: false })
    expect(checkout.product?.name).toBe('Pro')
    expect(checkout.total_amount).toBe(2900)
    expect(checkout.customer_id).toBeNull()
    expect(await polar.checkouts.get(checkout.id)).toMatchObject({
      id: checkout.id,
      external_customer_id: 'user-1',
    })

    const page = await fetch(checkout.url)
    const html = await page.text()
    expect(html).toContain('Subscribe to Pro')
    expect(html).toContain('$29.00 / month')
    expect(html).toContain('>Pay now</button>')
    expect(html).toContain('value="ada@example.com"')

    const declined = await submitCheckoutForm(checkout.url, {
      intent: 'decline',
      email: 'ada@example.com',
    })
    expect(await declined.text()).toContain('role="alert">Your card was declined.')
    expect((await polar.checkouts.get(checkout.id)).status).toBe('open')

    const paid = await submitCheckoutForm(checkout.url, {
      intent: 'pay',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      country: 'GB',
    })
    expect(paid.status).toBe(303)
    expect(paid.headers.get('location')).toBe(checkout.success_url)

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
    for (const r of receiver.received)
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/)

    const byType = (type: string) => events.filter((e) => e.type === type).map((e) => e.data)
    const [customer] = byType('customer.created')
    expect(customer).toMatchObject({
      external_id: 'user-1',
      email: 'ada@example.com',
      metadata: { user_id: 'user-1' },
    })
    const [subscription] = byType('subscription.created')
    expect(subscription).toMatchObject({
      status: 'active',
      product_id: PRO,
      customer_id: customer.id,
      checkout_id: checkout.id,
      amount: 2900,
      recurring_interval: 'month',
      cancel_at_period_end: false,
      metadata: { user_id: 'user-1', seats: 3, trial: false },
      product: { name: 'Pro' },
      customer: { external_id: 'user-1' },
    })
    const [order] = byType('order.paid')
    expect(order).toMatchObject({
      status: 'paid',
      paid: true,
      billing_reason: 'subscription_create',
      net_amount: 2900,
      subscription_id: subscription.id,
      is_invoice_generated: false,
      billing_name: 'Ada Lovelace',
      billing_address: { country: 'GB' },
      product: { name: 'Pro' },
      metadata: { user_id: 'user-1', seats: 3, trial: false },
    })
    const finalCheckout = byType('checkout.updated').at(-1)
    expect(finalCheckout).toMatchObject({
      status: 'succeeded',
      subscription_id: subscription.id,
      customer_id: customer.id,
    })
    expect((await polar.checkouts.get(checkout.id)).status).toBe('succeeded')

    const again = await submitCheckoutForm(checkout.url, { intent: 'pay' })
    expect(again.status).toBe(409)
  })

  it('reuses the customer for a second checkout with the same external id', async () => {
    const { polar, emulator, receiver } = env
    const first = await polar.checkouts.create({
      products: [STARTER],
      external_customer_id: 'user-2',
      customer_email: 'b@example.com',
    })
    const done = await emulator.completeCheckout(first.id)
    const second = await polar.checkouts.create({ products: [PRO], external_customer_id: 'user-2' })
    // The customer holds a live subscription: refused, unless the organization allows more.
    await expect(emulator.completeCheckout(second.client_secret)).rejects.toMatchObject({
      status: 403,
      error: 'AlreadyActiveSubscriptionError',
    })
    emulator.setSubscriptionSettings({ allow_multiple_subscriptions: true })
    const again = await emulator.completeCheckout(second.client_secret)
    expect(again.customer.id).toBe(done.customer.id)
    await emulator.idle()
    expect(receiver.types().filter((t) => t === 'customer.created')).toHaveLength(1)
    const customers = await polar.customers.list({ email: 'b@example.com' })
    expect(customers.items.map((c) => c.external_id)).toEqual(['user-2'])
    expect((await polar.customers.get(done.customer.id)).email).toBe('b@example.com')
  })

  it('deleting a customer revokes its subscriptions and refuses its open checkouts', async () => {
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
    await expect(polar.customers.getExternal('u-3')).rejects.toBeInstanceOf(errors.ResourceNotFound)
    await expect(polar.customers.deleteExternal('u-3')).rejects.toBeInstanceOf(
      errors.ResourceNotFound,
    )
    await expect(polar.customers.get(customer.id)).rejects.toBeInstanceOf(errors.ResourceNotFound)
    // Its email and external id are free again.
    const again = await polar.customers.create({ email: 'c@example.com', external_id: 'u-3' })
    expect(again.id).not.toBe(customer.id)
  })

  it('rejects signatures made with another secret', async () => {
    const { polar, emulator, receiver } = env
    await polar.checkouts.create({ products: [PRO] })
    await emulator.idle()
    const [delivery] = receiver.received
    await expect(verify(delivery, 'polar_whs_wrong')).rejects.toBeInstanceOf(
      webhooks.PolarWebhookVerificationError,
    )
    await expect(
      verify({ ...delivery, body: delivery.body.replace('open', 'paid') }),
    ).rejects.toThrow('No matching signature found')
    await expect(verify(delivery)).resolves.toMatchObject({
      type: 'checkout.created',
      api_version: '2026-10',
    })
  })
})

describe('checkout validation (422 in FastAPI shape)', () => {
  it('rejects nested metadata values', async () => {
    const { polar } = env
    const error = await polar.checkouts
      .create({
        products: [PRO],
        metadata: { user: { id: 1 } } as unknown as Record<string, string>,
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(errors.HTTPValidationError)
    const { statusCode, error: body } = error as InstanceType<typeof errors.HTTPValidationError>
    expect(statusCode).toBe(422)
    expect(body).toEqual({
      detail: [
        expect.objectContaining({
          loc: ['body', 'metadata', 'user'],
          input: { id: 1 },
          msg: expect.stringContaining('string'),
        }),
      ],
    })
  })

  it('rejects unknown products and keys longer than 40 characters', async () => {
    const { emulator } = env
    const response = await fetch(`${emulator.url}/v1/checkouts/`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer polar_oat_local_emulator',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        products: ['00000000-0000-4000-8000-000000000000'],
        metadata: { ['k'.repeat(41)]: 'v' },
      }),
    })
    expect(response.status).toBe(422)
    const body = (await response.json()) as { detail: { loc: unknown[] }[] }
    expect(body.detail.map((d) => d.loc)).toEqual([['body', 'metadata', 'k'.repeat(41)]])
    const unknown = await fetch(`${emulator.url}/v1/checkouts/`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer polar_oat_local_emulator',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ products: ['00000000-0000-4000-8000-000000000000'] }),
    })
    expect(await unknown.json()).toEqual({
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'products', 0],
          msg: 'Product does not exist.',
          input: '00000000-0000-4000-8000-000000000000',
        },
      ],
    })
  })

  it('rejects an empty metadata value on a checkout and a customer, as Polar does', async () => {
    const { polar } = env
    const checkout = await polar.checkouts
      .create({ products: [PRO], metadata: { user_id: 'user-1', request_id: '' } })
      .catch((e: unknown) => e)
    expect(checkout).toBeInstanceOf(errors.HTTPValidationError)
    const { statusCode, error } = checkout as InstanceType<typeof errors.HTTPValidationError>
    expect(statusCode).toBe(422)
    expect(error.detail?.map((d) => d.loc)).toEqual([['body', 'metadata', 'request_id']])
    const customer = polar.customers.create({ email: 'a@b.c', metadata: { source: '' } })
    await expect(customer).rejects.toBeInstanceOf(errors.HTTPValidationError)
  })
})
