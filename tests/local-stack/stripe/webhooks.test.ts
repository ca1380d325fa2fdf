import { afterEach, describe, expect, it } from 'vitest'

import { setupStack, subscribeThroughCheckout, verifiedEvents } from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>
afterEach(async () => {
  await stack.teardown()
})

const stackWith = async (...args: Parameters<typeof setupStack>) =>
  (stack = await setupStack(...args))
const resend = (id: string) =>
  fetch(`${stack.emulator.url}/_emulator/events/${id}/resend`, { method: 'POST' })

describe('webhook delivery', () => {
  it('retries a failing endpoint with backoff and keeps creation order', async () => {
    const { emulator, stripe, receiver } = await stackWith({}, (index) => (index < 2 ? 500 : 200))
    await subscribeThroughCheckout(stripe, emulator)
    const deliveries = emulator.deliveries()
    expect(deliveries.slice(0, 3).map((d) => [d.type, d.attempt, d.status])).toEqual([
      ['customer.created', 1, 500],
      ['customer.created', 2, 500],
      ['customer.created', 3, 200],
    ])
    expect(deliveries[0].response).toContain('failing #0')
    const delivered = verifiedEvents(stripe, receiver).slice(2)
    expect(delivered.map((event) => event.type)).toEqual([
      'customer.created',
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
      'checkout.session.completed',
    ])
    // Checkout creates the subscription incomplete and activates it once the invoice is paid.
    expect(delivered[1].data.object).toMatchObject({ status: 'incomplete' })
    expect(delivered[6].data.previous_attributes).toEqual({ status: 'incomplete' })
    const pending = await stripe.events.list({ delivery_success: false })
    expect(pending.data).toHaveLength(0)
  })

  it('gives up after the bounded attempts, keeps the event, and resends it on demand', async () => {
    let failing = true
    const { emulator, stripe, receiver } = await stackWith({}, () => (failing ? 503 : 200))
    const event = await emulator.trigger('customer.created')
    await emulator.idle()
    expect(emulator.deliveries().map((d) => d.attempt)).toEqual([1, 2, 3, 4])
    const html = await (await fetch(`${emulator.url}/_emulator/deliveries`)).text()
    expect(html).toContain(`aria-label="Resend ${event.id}"`)
    const undelivered = await stripe.events.list({ delivery_success: false })
    expect(undelivered.data.map((item) => item.id)).toEqual([event.id])
    failing = false
    const resent = await resend(event.id)
    expect([resent.status, await resent.json()]).toEqual([200, { resent: event.id }])
    await emulator.idle()
    expect(emulator.deliveries().at(-1)).toMatchObject({
      eventId: event.id,
      status: 200,
      ok: true,
      attempt: 1,
    })
    expect(verifiedEvents(stripe, receiver).at(-1)?.id).toBe(event.id)
    expect(
      (await stripe.events.list({ delivery_success: true })).data.map((item) => item.id),
    ).toEqual([event.id])
  })

  it('retries three times over a few hours of the compressed clock by default', async () => {
    const { emulator, stripe } = await stackWith({ retry: undefined }, () => 503)
    const started = Date.now()
    const event = await emulator.trigger('customer.created')
    await emulator.idle()
    const elapsed = Date.now() - started
    const attempts = emulator.deliveries()
    expect(attempts.map((d) => [d.attempt, d.status, d.nextAttemptInSeconds])).toEqual([
      [1, 503, 1800],
      [2, 503, 3600],
      [3, 503, 7200],
      [4, 503, null],
    ])
    // 3.5 emulated hours at an emulated hour per real second.
    expect(elapsed).toBeGreaterThanOrEqual(3400)
    expect(elapsed).toBeLessThan(8000)
    const gaps = attempts.slice(1).map((d, i) => Date.parse(d.at) - Date.parse(attempts[i].at))
    expect(gaps[2]).toBeGreaterThan(gaps[0] * 2)
    const undelivered = await stripe.events.list({ delivery_success: false })
    expect(undelivered.data.map((item) => item.id)).toEqual([event.id])
  })

  it('is sent nothing, drops pending retries, and refuses resends until enabled', async () => {
    let failing = true
    const { emulator, stripe, receiver } = await stackWith(
      { retry: { delaysSeconds: [1800, 3600], timeScale: 3600 } },
      () => (failing ? 500 : 200),
    )
    const [endpoint] = (await stripe.webhookEndpoints.list()).data
    expect(endpoint).toMatchObject({
      object: 'webhook_endpoint',
      status: 'enabled',
      url: receiver.url,
    })
    const first = await emulator.trigger('customer.created')
    // The first attempt failed; its retry is half a second away when the endpoint is disabled.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const disabled = await stripe.webhookEndpoints.update(endpoint.id, { disabled: true })
    expect(disabled.status).toBe('disabled')
    failing = false
    const second = await emulator.trigger('customer.created')
    await emulator.idle()
    expect(emulator.deliveries().map((d) => [d.eventId, d.attempt])).toEqual([[first.id, 1]])
    expect(receiver.received.map((r) => r.headers['stripe-signature'] !== undefined)).toEqual([
      true,
    ])
    expect((await stripe.events.retrieve(second.id)).pending_webhooks).toBe(0)
    const undelivered = await stripe.events.list({ delivery_success: false })
    expect(undelivered.data.map((event) => event.id)).toEqual([first.id])
    const refused = await resend(first.id)
    expect(refused.status).toBe(400)
    expect(await refused.text()).toContain('disabled')

    await stripe.webhookEndpoints.update(endpoint.id, { disabled: false })
    const third = await emulator.trigger('customer.created')
    await resend(first.id)
    await emulator.idle()
    expect(verifiedEvents(stripe, receiver).map((event) => event.id)).toEqual([
      first.id,
      third.id,
      first.id,
    ])
    await expect(
      stripe.webhookEndpoints.update('we_missing', { disabled: true }),
    ).rejects.toMatchObject({ statusCode: 404 })
  })
})
