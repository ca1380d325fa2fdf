import { errors } from '@polar-sh/sdk/2026-10'
import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { setup } from './test-helpers'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const STARTER = catalogPlan(LOCAL_CATALOG, 'starter').polar.productId
const DAY = 24 * 60 * 60 * 1000
let env: Awaited<ReturnType<typeof setup>>

afterEach(async () => {
  await env.close()
})

const types = async () => (await env.delivered()).map((e) => e.type)

describe('order invoices', () => {
  it('are 404 until generated: POST 202 with null, then the URL and order.updated; a second POST regenerates', async () => {
    env = await setup({ invoiceDelayMs: 300 })
    const { order } = await env.subscribe(PRO, 'user-i1', { name: 'Grace Hopper' })
    const { polar } = env
    await expect(polar.orders.invoice(order.id)).rejects.toBeInstanceOf(errors.ResourceNotFound)
    const raw = await fetch(`${env.emulator.url}/v1/orders/${order.id}/invoice`, {
      method: 'POST',
      headers: { authorization: 'Bearer polar_oat_local_emulator' },
    })
    expect(raw.status).toBe(202)
    expect(await raw.text()).toBe('null')
    await expect(polar.orders.invoice(order.id)).rejects.toBeInstanceOf(errors.ResourceNotFound)
    await new Promise((resolve) => setTimeout(resolve, 400))
    const invoice = await polar.orders.invoice(order.id)
    expect(invoice.url).toBe(`${env.emulator.url}/invoices/${order.id}`)
    expect(await (await fetch(invoice.url)).text()).toContain('Billed to Grace Hopper')
    const [updated] = await env.delivered()
    expect(updated).toMatchObject({ type: 'order.updated', data: { is_invoice_generated: true } })

    expect(await polar.orders.generateInvoice(order.id)).toBeNull()
    expect((await polar.orders.invoice(order.id)).url).toBe(invoice.url)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(await types()).toEqual(['order.updated'])
  })
})

describe('renewals and refunds', () => {
  it('renews: a new period, a paid subscription_cycle order and its events', async () => {
    env = await setup()
    const { subscription } = await env.subscribe(PRO)
    const renewal = await env.emulator.trigger('renewal', { subscription_id: subscription.id })
    const next = new Date(subscription.current_period_end)
    next.setUTCMonth(next.getUTCMonth() + 1)
    expect(renewal.subscription).toMatchObject({
      current_period_start: subscription.current_period_end,
      current_period_end: next.toISOString(),
    })
    expect(renewal.order).toMatchObject({ billing_reason: 'subscription_cycle', status: 'paid' })
    expect(await types()).toEqual([
      'subscription.updated',
      'order.created',
      'order.updated',
      'order.paid',
    ])
  })

  it('a declined renewal leaves the order pending (no invoice: 409) and the subscription past_due', async () => {
    env = await setup()
    const { subscription } = await env.subscribe(PRO)
    const renewal = await env.emulator.trigger('renewal', {
      subscription_id: subscription.id,
      paid: false,
    })
    expect(renewal.order).toMatchObject({ status: 'pending', paid: false })
    expect(renewal.events.map((e) => e.type)).toEqual([
      'subscription.updated',
      'order.created',
      'subscription.updated',
      'subscription.past_due',
    ])
    const error = env.polar.orders.generateInvoice(renewal.order!.id)
    await expect(error).rejects.toBeInstanceOf(errors.OrderNotEligibleForInvoice)
    await expect(error).rejects.toMatchObject({
      statusCode: 409,
      error: { detail: 'Order is not eligible for invoice generation.' },
    })
  })

  it("adds the billing country's sales tax and refunds its share with each refund, never twice", async () => {
    env = await setup()
    env.emulator.setTaxRate('DE', 19)
    const { order } = await env.subscribe(PRO, 'user-t1', { country: 'DE' })
    expect(order).toMatchObject({ net_amount: 2900, tax_amount: 551, total_amount: 3451 })
    const part = await env.emulator.trigger('refund', { order_id: order.id, amount: 1000 })
    expect(part.refund).toMatchObject({ amount: 1000, tax_amount: 190 })
    const rest = await env.emulator.trigger('refund', { order_id: order.id })
    expect(rest.refund).toMatchObject({ amount: 1900, tax_amount: 361 })
    expect(rest.order).toMatchObject({ status: 'refunded', refundable_tax_amount: 0 })
    expect(rest.events.map((e) => e.type)).toEqual([
      'refund.created',
      'order.updated',
      'order.refunded',
    ])
    await expect(env.emulator.trigger('refund', { order_id: order.id })).rejects.toMatchObject({
      status: 403,
      error: 'RefundedAlready',
    })
  })
})

describe('subscription changes', () => {
  it('cancels, resumes and revokes with Polar events, and refuses what Polar refuses (403)', async () => {
    env = await setup()
    const { subscription } = await env.subscribe(STARTER)
    const { id } = subscription
    const { polar } = env
    expect(await polar.subscriptions.update(id, { cancel_at_period_end: true })).toMatchObject({
      cancel_at_period_end: true,
      ends_at: subscription.current_period_end,
    })
    const twice = polar.subscriptions.update(id, { cancel_at_period_end: true })
    await expect(twice).rejects.toBeInstanceOf(errors.SubscriptionsUpdate403Error)
    await expect(twice).rejects.toMatchObject({ error: { error: 'AlreadyCanceledSubscription' } })
    await polar.subscriptions.update(id, { cancel_at_period_end: false })
    const resumeAgain = polar.subscriptions.update(id, { cancel_at_period_end: false })
    await expect(resumeAgain).rejects.toMatchObject({
      error: { error: 'SubscriptionNotScheduledToCancel' },
    })
    expect(await polar.subscriptions.revoke(id)).toMatchObject({ status: 'canceled' })
    await expect(polar.subscriptions.revoke(id)).rejects.toMatchObject({ statusCode: 403 })
    expect(await types()).toEqual([
      'subscription.updated',
      'subscription.canceled',
      'subscription.updated',
      'subscription.uncanceled',
      'subscription.updated',
      'subscription.canceled',
      'subscription.revoked',
    ])
  })

  it('ends a subscription set to cancel at its renewal', async () => {
    env = await setup()
    const { subscription } = await env.subscribe(PRO)
    await env.emulator.trigger('cancel', { subscription_id: subscription.id })
    const renewal = await env.emulator.trigger('renewal', { subscription_id: subscription.id })
    expect(renewal.order).toBeUndefined()
    expect(renewal.subscription).toMatchObject({ status: 'canceled' })
  })

  it('changes the product now and prorates: the difference goes on the next order, a larger credit on the one after', async () => {
    env = await setup()
    const { subscription } = await env.subscribe(PRO)
    const record = env.emulator.state.subscriptions.get(subscription.id)!
    record.current_period_start = new Date(Date.now() - 15 * DAY).toISOString()
    record.current_period_end = new Date(Date.now() + 15 * DAY).toISOString()
    const updated = await env.polar.subscriptions.update(subscription.id, { product_id: STARTER })
    expect(updated).toMatchObject({ product_id: STARTER, amount: 900 })
    expect(await types()).toEqual(['subscription.updated'])
    // Half a period: credit 1450 for Pro, charge 450 for Starter: 900 − 1000 bills nothing.
    const renewal = await env.emulator.trigger('renewal', { subscription_id: subscription.id })
    expect(renewal.order).toMatchObject({ net_amount: 0 })
    expect(record.pending_proration).toBe(-100)
  })

  it('refuses a product change for an unknown product (422), with extra fields (422), or when past due (403)', async () => {
    env = await setup()
    const { id } = (await env.subscribe(PRO)).subscription
    const { polar } = env
    const status = (update: Record<string, unknown>) =>
      polar.subscriptions.update(id, update as { product_id: string }).then(
        () => 200,
        (e: { statusCode: number }) => e.statusCode,
      )
    expect(await status({ product_id: '00000000-0000-4000-8000-000000000000' })).toBe(422)
    expect(await status({ product_id: STARTER, seats: 2 })).toBe(422)
    expect(await status({ product_id: STARTER, proration_behavior: 'invoice' })).toBe(422)
    await env.emulator.trigger('renewal', { subscription_id: id, paid: false })
    const pastDue = polar.subscriptions.update(id, { product_id: STARTER })
    await expect(pastDue).rejects.toMatchObject({ error: { error: 'InactiveSubscription' } })
  })
})
