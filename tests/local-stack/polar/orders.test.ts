import { errors } from '@polar-sh/sdk/2026-10'
import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { setup, verify } from './test-helpers'

let env: Awaited<ReturnType<typeof setup>>

async function paidOrder(userId = 'user-o1') {
  const checkout = await env.polar.checkouts.create({
    products: [catalogPlan(LOCAL_CATALOG, 'pro').polar.productId],
    metadata: { user_id: userId },
  })
  const done = await env.emulator.completeCheckout(checkout.id, { name: 'Grace Hopper' })
  await env.emulator.idle()
  env.receiver.received.length = 0
  return done
}

async function delivered() {
  await env.emulator.idle()
  const events = await Promise.all(env.receiver.received.map((r) => verify(r)))
  env.receiver.received.length = 0
  return events
}

afterEach(async () => {
  await env.close()
})

describe('order invoices', () => {
  it('is 404 before generation, 202 with a null body, then 200 with a url and order.updated', async () => {
    env = await setup({ invoiceDelayMs: 500 })
    const { order } = await paidOrder()

    const before = await env.polar.orders.invoice(order.id).catch((e: unknown) => e)
    expect(before).toBeInstanceOf(errors.ResourceNotFound)
    expect((before as InstanceType<typeof errors.ResourceNotFound>).error).toMatchObject({
      error: 'ResourceNotFound',
    })

    const raw = await fetch(`${env.emulator.url}/v1/orders/${order.id}/invoice`, {
      method: 'POST',
      headers: { authorization: 'Bearer polar_oat_local_emulator', 'polar-version': '2026-10' },
    })
    expect(raw.status).toBe(202)
    expect(raw.headers.get('content-type')).toBe('application/json')
    expect(await raw.text()).toBe('null')
    // Still generating: not available yet.
    await expect(env.polar.orders.invoice(order.id)).rejects.toBeInstanceOf(errors.ResourceNotFound)
    expect(await env.polar.orders.generateInvoice(order.id)).toBeNull()

    await new Promise((resolve) => setTimeout(resolve, 600))
    const invoice = await env.polar.orders.invoice(order.id)
    expect(invoice.url).toBe(`${env.emulator.url}/invoices/${order.id}`)
    const html = await (await fetch(invoice.url)).text()
    expect(html).toContain('Billed to Grace Hopper')
    expect(html).toContain('$29.00')
    expect((await env.polar.orders.get(order.id)).is_invoice_generated).toBe(true)

    const events = await delivered()
    expect(events.map((e) => e.type)).toEqual(['order.updated'])
    expect(events[0].data).toMatchObject({ id: order.id, is_invoice_generated: true })

    // A second POST after generation regenerates: 202 again, the URL stays available, one more order.updated.
    expect(await env.polar.orders.generateInvoice(order.id)).toBeNull()
    expect((await env.polar.orders.invoice(order.id)).url).toBe(invoice.url)
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect((await delivered()).map((e) => e.type)).toEqual(['order.updated'])
  })

  it('answers 409 OrderNotEligibleForInvoice for an unpaid order', async () => {
    env = await setup()
    const { subscription } = await paidOrder()
    const renewal = await env.emulator.trigger('renewal', {
      subscription_id: subscription.id,
      paid: false,
    })
    expect(renewal.order).toMatchObject({
      status: 'pending',
      paid: false,
      billing_reason: 'subscription_cycle',
    })
    const error = await env.polar.orders.generateInvoice(renewal.order!.id).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(errors.OrderNotEligibleForInvoice)
    expect((error as InstanceType<typeof errors.OrderNotEligibleForInvoice>).statusCode).toBe(409)
    expect((error as InstanceType<typeof errors.OrderNotEligibleForInvoice>).error).toEqual({
      error: 'OrderNotEligibleForInvoice',
      detail: 'Order is not eligible for invoice generation.',
    })
    expect(renewal.events.map((e) => e.type)).toEqual([
      'subscription.updated',
      'order.created',
      'subscription.updated',
      'subscription.past_due',
    ])
    expect((await env.polar.subscriptions.get(subscription.id)).status).toBe('past_due')
  })
})

describe('triggers', () => {
  it('renews: new period, a paid subscription_cycle order and its events', async () => {
    env = await setup()
    const { subscription } = await paidOrder('user-r1')
    const result = await env.emulator.trigger('renewal', { subscription_id: subscription.id })
    expect(result.events.map((e) => e.type)).toEqual([
      'subscription.updated',
      'order.created',
      'order.updated',
      'order.paid',
    ])
    const events = await delivered()
    expect(events.map((e) => e.type)).toEqual([
      'subscription.updated',
      'order.created',
      'order.updated',
      'order.paid',
    ])
    const nextEnd = new Date(subscription.current_period_end)
    nextEnd.setUTCMonth(nextEnd.getUTCMonth() + 1)
    expect(events[0].data).toMatchObject({
      current_period_start: subscription.current_period_end,
      current_period_end: nextEnd.toISOString(),
    })
    expect(events[3].data).toMatchObject({
      billing_reason: 'subscription_cycle',
      status: 'paid',
      net_amount: 2900,
      subscription_id: subscription.id,
      metadata: { user_id: 'user-r1' },
    })
    const orders = await env.polar.orders.list({ subscription_id: subscription.id })
    expect(orders.items.map((o) => o.billing_reason)).toEqual([
      'subscription_cycle',
      'subscription_create',
    ])
  })

  it('refunds the latest paid order through the admin endpoint', async () => {
    env = await setup()
    const { order } = await paidOrder('user-f1')
    const response = await fetch(`${env.emulator.url}/_emulator/trigger`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'refund', order_id: order.id }),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as {
      events: { type: string }[]
      refund: Record<string, unknown>
      order: Record<string, unknown>
    }
    expect(body.events.map((e) => e.type)).toEqual([
      'refund.created',
      'order.updated',
      'order.refunded',
    ])
    expect(body.refund).toMatchObject({ order_id: order.id, amount: 2900, status: 'succeeded' })
    expect(body.order).toMatchObject({
      status: 'refunded',
      refunded_amount: 2900,
      refundable_amount: 0,
    })
    const events = await delivered()
    expect(events.at(-1)).toMatchObject({
      type: 'order.refunded',
      data: { id: order.id, status: 'refunded' },
    })
    const twice = await fetch(`${env.emulator.url}/_emulator/trigger`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'refund', order_id: order.id }),
    })
    expect(twice.status).toBe(403)
    expect(await twice.json()).toMatchObject({ error: 'RefundedAlready' })
  })

  it('adds the sales tax of the billing country, and refunds its share with each refund', async () => {
    env = await setup()
    env.emulator.setTaxRate('DE', 19)
    const checkout = await env.polar.checkouts.create({
      products: [catalogPlan(LOCAL_CATALOG, 'pro').polar.productId],
    })
    const { order, subscription } = await env.emulator.completeCheckout(checkout.id, {
      country: 'DE',
    })
    expect(order).toMatchObject({ net_amount: 2900, tax_amount: 551, total_amount: 3451 })
    const renewal = await env.emulator.trigger('renewal', { subscription_id: subscription.id })
    expect(renewal.order).toMatchObject({ tax_amount: 551, total_amount: 3451 })
    const part = await env.emulator.trigger('refund', { order_id: order.id, amount: 1000 })
    expect(part.refund).toMatchObject({ amount: 1000, tax_amount: 190 })
    const rest = await env.emulator.trigger('refund', { order_id: order.id })
    expect(rest.refund).toMatchObject({ amount: 1900, tax_amount: 361 })
    expect(rest.order).toMatchObject({
      status: 'refunded',
      refunded_amount: 2900,
      refunded_tax_amount: 551,
      refundable_tax_amount: 0,
    })
  })

  it('cancels at period end, then a renewal ends the subscription', async () => {
    env = await setup()
    const { subscription } = await paidOrder('user-c1')
    await env.emulator.trigger('cancel', { subscription_id: subscription.id })
    const result = await env.emulator.trigger('renewal', { subscription_id: subscription.id })
    expect(result.order).toBeUndefined()
    expect(result.events.map((e) => e.type)).toEqual([
      'subscription.updated',
      'subscription.canceled',
      'subscription.revoked',
    ])
    expect(result.subscription).toMatchObject({ status: 'canceled' })
  })

  it('re-sends an object as a raw event type and rejects unknown types', async () => {
    env = await setup()
    const { subscription } = await paidOrder('user-x1')
    const result = await env.emulator.trigger('subscription.updated', {
      subscription_id: subscription.id,
    })
    expect(result.events.map((e) => e.type)).toEqual(['subscription.updated'])
    await expect(env.emulator.trigger('nonsense')).rejects.toThrow('Unknown trigger type')
  })
})

describe('date filters of the lists', () => {
  it('keep items on or after / before the time, and refuse a time without its offset (422)', async () => {
    env = await setup()
    const { order } = await paidOrder()
    const created = order.created_at
    const later = new Date(Date.parse(created) + 60_000).toISOString()
    const orders = async (query: Record<string, string>) =>
      (await env.polar.orders.list(query)).items.map((item) => item.id)
    expect(await orders({ created_after: created })).toEqual([order.id])
    expect(await orders({ created_after: later })).toEqual([])
    expect(await orders({ created_before: created })).toEqual([order.id])
    const subscriptions = async (query: Record<string, string>) =>
      (await env.polar.subscriptions.list(query)).items.map((item) => item.id)
    expect(await subscriptions({ started_after: later })).toEqual([])
    expect(await subscriptions({ started_before: later })).toEqual([order.subscription_id])
    expect(await subscriptions({ canceled_at_after: created })).toEqual([])
    const naive = await env.polar.orders
      .list({ created_after: '2026-01-01T00:00:00' })
      .catch((error: unknown) => error)
    expect(naive).toMatchObject({ statusCode: 422 })
  })
})
