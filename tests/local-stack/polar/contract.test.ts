/** Contract: every API answer and webhook payload conforms to what `@polar-sh/sdk` 1.x declares. */
import { randomUUID } from 'node:crypto'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { RouteTable } from '../http'
import { validate } from '../sdk-types/validate'
import { registerApi } from './api'
import { type CheckedCall, checkedPolar, loadPolarTypes, SDK_CALLS } from './contract/sdk-types'
import type { Handler } from './http'
import { EmulatorContext, PolarState } from './state'
import { SECRET, setup, verify } from './test-helpers'
import { POLAR_EVENT_TYPES, WebhookDispatcher } from './webhooks'

const types = loadPolarTypes()
const calls: CheckedCall[] = []
let env: Awaited<ReturnType<typeof setup>>

beforeAll(async () => {
  env = await setup()
  await exerciseEveryEndpoint(checkedPolar(env.polar, types, calls))
  await env.emulator.idle()
})
afterAll(async () => {
  await env.close()
})

type Polar = typeof env.polar

/** The app's flows and the emulator's lifecycle, through every API endpoint once at least. */
async function exerciseEveryEndpoint(polar: Polar) {
  const userId = randomUUID()
  const productId = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
  await polar.webhooks.listWebhookEndpoints({ limit: 10 })
  const checkout = await polar.checkouts.create({
    products: [productId],
    metadata: { user_id: userId },
    external_customer_id: userId,
    customer_email: 'contract@example.com',
    success_url: 'http://localhost:5173/success?checkout_id={CHECKOUT_ID}',
  })
  await polar.checkouts.get(checkout.id)
  const { customer, subscription, order } = await env.emulator.completeCheckout(checkout.id)
  await polar.checkouts.get(checkout.id)
  await polar.customers.list({ email: 'contract@example.com' })
  await polar.customers.getExternal(userId)
  const ownUser = randomUUID()
  const own = await polar.customers.create({ email: 'own@example.com', external_id: ownUser })
  await polar.customers.update(own.id, { name: 'Own Customer' })
  await expect(
    polar.customers.create({ email: 'own@example.com', external_id: randomUUID() }),
  ).rejects.toThrow()
  await polar.customerSessions.create({ customer_id: customer.id, return_url: null })
  await polar.customerSessions.create({ external_customer_id: userId })
  await polar.subscriptions.list({ external_customer_id: userId })
  await polar.subscriptions.get(subscription.id)
  await polar.orders.list({ created_after: order.created_at })
  await polar.orders.generateInvoice(order.id)
  await polar.orders.invoice(order.id)
  const starterId = catalogPlan(LOCAL_CATALOG, 'starter').polar.productId
  await polar.subscriptions.update(subscription.id, { product_id: starterId })
  await env.emulator.trigger('renewal', { subscription_id: subscription.id })
  const declined = await env.emulator.trigger('renewal', {
    subscription_id: subscription.id,
    paid: false,
  })
  await expect(polar.orders.generateInvoice(declined.order?.id ?? '')).rejects.toThrow()
  await expect(
    polar.subscriptions.update(subscription.id, { product_id: productId }),
  ).rejects.toThrow()
  await env.emulator.trigger('refund', { order_id: order.id })
  await polar.subscriptions.update(subscription.id, { cancel_at_period_end: true })
  await polar.subscriptions.update(subscription.id, { cancel_at_period_end: false })
  await polar.subscriptions.revoke(subscription.id)
  await polar.customers.deleteExternal(ownUser)
  await expect(polar.subscriptions.get(randomUUID())).rejects.toThrow()
  await expect(polar.subscriptions.get('not-a-uuid')).rejects.toThrow()
}

describe('the Polar emulator against @polar-sh/sdk 1.x declarations', () => {
  it('answers every SDK call it serves, and serves only those', () => {
    const router = new RouteTable<Handler>()
    const webhooks = new WebhookDispatcher({ secret: SECRET, attempts: 1, baseDelayMs: 1 })
    registerApi(router, new EmulatorContext(new PolarState(LOCAL_CATALOG), webhooks, '', 0))
    expect(new Set(router.describe())).toEqual(new Set(Object.values(SDK_CALLS)))
    const answered = calls.filter((entry) => entry.outcome === 'ok').map((entry) => entry.call)
    expect(new Set(answered)).toEqual(new Set(Object.keys(SDK_CALLS)))
  })

  it('answers with typed error bodies where the SDK declares them', () => {
    const failures = new Set(calls.map((entry) => entry.outcome).filter((o) => o !== 'ok'))
    expect(failures).toEqual(
      new Set([
        'ResourceNotFound',
        'HTTPValidationError',
        'OrderNotEligibleForInvoice',
        'SubscriptionsUpdate403Error',
      ]),
    )
  })

  it('gives every answer the shape the SDK declares for it', () => {
    const problems = calls.flatMap(({ call, outcome, problems }) =>
      problems.map((problem) => `${call} (${outcome}): ${problem.path} ${problem.message}`),
    )
    expect([...new Set(problems)]).toEqual([])
  })

  it('sends webhook payloads that the SDK verifies and that have the declared shape', async () => {
    const payloadType = types.get('webhook_payload')
    const seen = new Set<string>()
    const problems: string[] = []
    for (const request of env.receiver.received) {
      const event = await verify(request)
      seen.add(event.type)
      for (const problem of validate(types, JSON.parse(request.body), payloadType)) {
        problems.push(`${event.type}: ${problem.path} ${problem.message}`)
      }
    }
    expect([...new Set(problems)]).toEqual([])
    // Every type a new endpoint is sent by default.
    expect([...seen].sort()).toEqual(POLAR_EVENT_TYPES)
  })
})
