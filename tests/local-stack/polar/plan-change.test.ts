import { PolarClientError } from '@polar-sh/sdk'
import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { setup } from './test-helpers'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const STARTER = catalogPlan(LOCAL_CATALOG, 'starter').polar.productId
const DAY = 24 * 60 * 60 * 1000
const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

/** A paid subscription to `product`, half way through a 30-day period. */
async function halfWay(product: string) {
  const env = await setup()
  cleanups.push(env.close)
  const checkout = await env.polar.checkouts.create({ products: [product] })
  const { subscription } = await env.emulator.completeCheckout(checkout.id)
  const record = env.emulator.state.subscriptions.get(subscription.id)!
  record.current_period_start = new Date(Date.now() - 15 * DAY).toISOString()
  record.current_period_end = new Date(Date.now() + 15 * DAY).toISOString()
  await env.emulator.idle()
  env.receiver.received.length = 0
  return { ...env, subscriptionId: subscription.id }
}

describe('changing a subscription’s product (PATCH /v1/subscriptions/{id})', () => {
  it('prorates by default: switches now, sends subscription.updated, bills the difference with the next period', async () => {
    const { polar, emulator, receiver, subscriptionId } = await halfWay(PRO)
    const updated = await polar.subscriptions.update(subscriptionId, { product_id: STARTER })
    expect(updated).toMatchObject({ product_id: STARTER, amount: 900, pending_update: null })
    expect(updated.product.name).toBe('Starter')
    await emulator.idle()
    expect(receiver.types()).toEqual(['subscription.updated'])
    expect(emulator.state.ordersOf(subscriptionId)).toHaveLength(1)

    // Half a period: credit 1450 for Pro, charge 450 for Starter → −1000 on the next order:
    // 900 − 1000 bills nothing and carries −100 to the period after.
    const renewal = await emulator.trigger('renewal', { subscription_id: subscriptionId })
    expect(renewal.order).toMatchObject({ net_amount: 0 })
    expect(emulator.state.subscriptions.get(subscriptionId)!.pending_proration).toBe(-100)
  })

  it('bills an upgrade now with proration_behavior invoice: a subscription_update order, paid', async () => {
    const { polar, emulator, receiver, subscriptionId } = await halfWay(STARTER)
    await polar.subscriptions.update(subscriptionId, {
      product_id: PRO,
      proration_behavior: 'invoice',
    })
    await emulator.idle()
    expect(receiver.types()).toEqual([
      'subscription.updated',
      'order.created',
      'order.updated',
      'order.paid',
    ])
    const order = emulator.state
      .ordersOf(subscriptionId)
      .find((o) => o.billing_reason === 'subscription_update')!
    expect(order).toMatchObject({ status: 'paid', product_id: PRO })
    // 1450 − 450, within a cent of rounding while the test runs.
    expect(Math.abs(order.amount - 1000)).toBeLessThanOrEqual(1)
  })

  it('schedules the change for the next period with next_period (pending_update), applied at renewal', async () => {
    const { polar, emulator, subscriptionId } = await halfWay(PRO)
    const updated = await polar.subscriptions.update(subscriptionId, {
      product_id: STARTER,
      proration_behavior: 'next_period',
    })
    expect(updated.product_id).toBe(PRO)
    expect(updated.pending_update).toMatchObject({
      product_id: STARTER,
      applies_at: updated.current_period_end,
    })
    const renewal = await emulator.trigger('renewal', { subscription_id: subscriptionId })
    expect(renewal.order).toMatchObject({ net_amount: 900, product_id: STARTER })
    expect((await polar.subscriptions.get(subscriptionId)).pending_update).toBeNull()
  })

  it('refuses a canceling or ended subscription (403), a past-due one (403) and an unknown product (422)', async () => {
    const { polar, emulator, subscriptionId } = await halfWay(PRO)
    const status = (promise: Promise<unknown>) =>
      promise.then(
        () => 200,
        (e: unknown) => (e as PolarClientError).statusCode,
      )
    expect(
      await status(
        polar.subscriptions.update(subscriptionId, {
          product_id: '00000000-0000-4000-8000-000000000000',
        }),
      ),
    ).toBe(422)
    await polar.subscriptions.update(subscriptionId, { cancel_at_period_end: true })
    const canceling = await polar.subscriptions
      .update(subscriptionId, { product_id: STARTER })
      .catch((e: unknown) => e)
    expect(canceling).toMatchObject({
      statusCode: 403,
      error: { error: 'AlreadyCanceledSubscription' },
    })
    await polar.subscriptions.update(subscriptionId, { cancel_at_period_end: false })
    await emulator.trigger('renewal', { subscription_id: subscriptionId, paid: false })
    const pastDue = await polar.subscriptions
      .update(subscriptionId, { product_id: STARTER })
      .catch((e: unknown) => e)
    expect(pastDue).toMatchObject({ statusCode: 403, error: { error: 'InactiveSubscription' } })
    // Extra fields are forbidden (SubscriptionUpdateBase: extra="forbid").
    const extra = await fetch(`${emulator.url}/v1/subscriptions/${subscriptionId}`, {
      method: 'PATCH',
      headers: {
        authorization: 'Bearer polar_oat_local_emulator',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ product_id: STARTER, seats: 2 }),
    })
    expect(extra.status).toBe(422)
  })
})
