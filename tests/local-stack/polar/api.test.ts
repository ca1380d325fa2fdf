import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { setup, TOKEN } from './test-helpers'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const STARTER = catalogPlan(LOCAL_CATALOG, 'starter').polar.productId
const MISSING = '00000000-0000-4000-8000-000000000000'
let env: Awaited<ReturnType<typeof setup>>

afterEach(async () => {
  await env.close()
})

type Env = typeof env
const post = (path: string, body: unknown) =>
  fetch(`${env.emulator.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (response) => {
    if (response.ok) return response
    throw { status: response.status, body: await response.json() }
  })
const checkout = (body: object) => post('/v1/checkouts/', { products: [PRO], ...body })
const invalid = (...loc: unknown[]) => ({ status: 422, body: { detail: [{ loc }] } })
const notFound = { statusCode: 404, error: { error: 'ResourceNotFound' } }
const subscribed = async (then?: (id: string) => Promise<unknown>) => {
  const { id } = (await env.subscribe(PRO)).subscription
  await then?.(id)
  return id
}
const update = (id: string, body: object) =>
  env.polar.subscriptions.update(id, body as { product_id: string })
const trigger = (type: string, options: object) => env.emulator.trigger(type, options)
const change = (body: object) => async () => update(await subscribed(), body)
const sdkInvalid = (...loc: unknown[]) => ({ statusCode: 422, error: { detail: [{ loc }] } })
const refused = (statusCode: number, error: string) => ({ statusCode, error: { error } })

/** What Polar refuses, refused in its shape (FastAPI's 422, `{error, detail}` otherwise). */
describe('refusals', () => {
  it.each<[string, (env: Env) => Promise<unknown>, object]>([
    [
      'a checkout of an unknown product',
      () => post('/v1/checkouts/', { products: [MISSING] }),
      invalid('body', 'products', 0),
    ],
    [
      'a customer with a taken email, whatever its case',
      async ({ polar }) => {
        await polar.customers.create({ email: 'a@b.c' })
        return polar.customers.create({ email: 'A@b.c' })
      },
      sdkInvalid('body', 'email'),
    ],
    [
      'a customer with a taken external id',
      async ({ polar }) => {
        await polar.customers.create({ email: 'a@b.c', external_id: 'x-1' })
        return polar.customers.create({ email: 'd@e.f', external_id: 'x-1' })
      },
      sdkInvalid('body', 'external_id'),
    ],
    [
      'a customer with an empty metadata value',
      ({ polar }) => polar.customers.create({ email: 'g@h.i', metadata: { source: '' } }),
      sdkInvalid('body', 'metadata', 'source'),
    ],
    [
      'a change of an external id once set',
      async ({ polar }) => {
        const { id } = await polar.customers.create({ email: 'a@b.c', external_id: 'x-1' })
        return polar.customers.update(id, { external_id: 'x-3' })
      },
      { error: { detail: [{ msg: "The external ID can't be updated once set." }] } },
    ],
    [
      'a portal session for an unknown external id',
      ({ polar }) => polar.customerSessions.create({ external_customer_id: 'nobody' }),
      { error: { detail: [{ loc: ['body', 'external_customer_id'], input: 'nobody' }] } },
    ],
    ['an unknown checkout', ({ polar }) => polar.checkouts.get(MISSING), notFound],
    ['an unknown subscription', ({ polar }) => polar.subscriptions.get(MISSING), notFound],
    ['the invoice of an unknown order', ({ polar }) => polar.orders.invoice(MISSING), notFound],
    ['an unknown external id', ({ polar }) => polar.customers.getExternal('nobody'), notFound],
    [
      'a malformed id',
      ({ polar }) => polar.subscriptions.get('not-a-uuid'),
      { statusCode: 422, error: { detail: [{ type: 'uuid_parsing', loc: ['path', 'id'] }] } },
    ],
    [
      'an invoice before it is generated',
      async ({ polar }) => polar.orders.invoice((await env.subscribe(PRO)).order.id),
      notFound,
    ],
    [
      'an invoice of a declined renewal, whose order is pending',
      async ({ polar }) => {
        const id = await subscribed()
        const { order } = await trigger('renewal', { subscription_id: id, paid: false })
        return polar.orders.generateInvoice(order!.id)
      },
      { statusCode: 409, error: { detail: 'Order is not eligible for invoice generation.' } },
    ],
    [
      'a refund of a refunded order',
      async () => {
        const { order } = await env.subscribe(PRO)
        await trigger('refund', { order_id: order.id })
        return trigger('refund', { order_id: order.id })
      },
      { status: 403, error: 'RefundedAlready' },
    ],
    [
      'a second cancellation',
      async () =>
        update(await subscribed((id) => update(id, { cancel_at_period_end: true })), {
          cancel_at_period_end: true,
        }),
      refused(403, 'AlreadyCanceledSubscription'),
    ],
    [
      'resuming a subscription not set to cancel',
      change({ cancel_at_period_end: false }),
      refused(403, 'SubscriptionNotScheduledToCancel'),
    ],
    [
      'a second revocation',
      async ({ polar }) =>
        polar.subscriptions.revoke(await subscribed((id) => polar.subscriptions.revoke(id))),
      refused(403, 'AlreadyCanceledSubscription'),
    ],
    ['a change to an unknown product', change({ product_id: MISSING }), { statusCode: 422 }],
    [
      'a product change with a field it does not take',
      change({ product_id: STARTER, seats: 2 }),
      { statusCode: 422 },
    ],
    [
      'a product change billed other than the default proration',
      change({ product_id: STARTER, proration_behavior: 'invoice' }),
      { statusCode: 422 },
    ],
    [
      'a product change of a past-due subscription',
      async () => {
        const id = await subscribed((id) =>
          trigger('renewal', { subscription_id: id, paid: false }),
        )
        return update(id, { product_id: STARTER })
      },
      refused(403, 'InactiveSubscription'),
    ],
  ])('%s', async (_name, call, error) => {
    env = await setup()
    await expect(call(env)).rejects.toMatchObject(error)
  })

  it.each<[string, object, string]>([
    ['nested', { user: { id: 1 } }, 'user'],
    ['an empty value', { a: 'b', c: '' }, 'c'],
    ['a key over 40 characters', { ['k'.repeat(41)]: 'v' }, 'k'.repeat(41)],
  ])('a checkout with metadata: %s', async (_name, metadata, key) => {
    env = await setup()
    await expect(checkout({ metadata })).rejects.toMatchObject(invalid('body', 'metadata', key))
  })
})
