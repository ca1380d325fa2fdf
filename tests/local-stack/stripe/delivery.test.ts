/**
 * Webhook delivery as Stripe does it: at least once and not ordered (the shuffled mode),
 * test-mode retries over hours on a compressed clock, and an endpoint that can be disabled.
 */
import { afterEach, describe, expect, it } from 'vitest'

import { TEST_MODE_RETRIES } from './index'
import { setupStack, subscribeThroughCheckout, verifiedEvents } from './test-support'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

async function stackWith(
  options: Parameters<typeof setupStack>[0],
  respond?: (index: number) => number,
) {
  const stack = await setupStack(options, respond)
  cleanups.push(stack.teardown)
  return stack
}

describe('test-mode retries', () => {
  it('retries three times over a few hours of the compressed clock by default', async () => {
    expect(TEST_MODE_RETRIES.delaysSeconds).toHaveLength(3)
    const hours = TEST_MODE_RETRIES.delaysSeconds.reduce((a, b) => a + b, 0) / 3600
    expect(hours).toBeGreaterThanOrEqual(2)
    expect(hours).toBeLessThanOrEqual(6)

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
})

describe('shuffled delivery', () => {
  it('delivers every event at least once, out of creation order, with duplicates', async () => {
    const { emulator, stripe, receiver } = await stackWith({
      delivery: { mode: 'shuffled', windowMs: 150, duplicateRate: 1, seed: 7 },
    })
    const { subscriptionId } = await subscribeThroughCheckout(stripe, emulator)
    await emulator.advanceSubscription(subscriptionId)
    await emulator.advanceSubscription(subscriptionId, { fail: true })
    await emulator.idle()
    const created = emulator.events().map((event) => event.id)
    const arrived = verifiedEvents(stripe, receiver).map((event) => event.id)
    expect(new Set(arrived)).toEqual(new Set(created))
    // Every event twice (duplicateRate 1), the same event id both times.
    expect(arrived).toHaveLength(created.length * 2)
    const firstArrivals = arrived.filter((id, index) => arrived.indexOf(id) === index)
    expect(firstArrivals).not.toEqual(created)
    expect(emulator.deliveries().filter((d) => d.duplicate)).toHaveLength(created.length)
    const delivered = await stripe.events.list({ delivery_success: true, limit: 100 })
    expect(delivered.data).toHaveLength(created.length)
  })

  it('does not hold later events back behind a failing one', async () => {
    const { emulator, stripe, receiver } = await stackWith(
      {
        delivery: { mode: 'shuffled', windowMs: 10, duplicateRate: 0, seed: 1 },
        retry: { delaysSeconds: [1800], timeScale: 3600 },
      },
      (index) => (index === 0 ? 500 : 200),
    )
    await subscribeThroughCheckout(stripe, emulator)
    const attempts = emulator.deliveries()
    const failed = attempts[0]
    expect(failed).toMatchObject({ status: 500, nextAttemptInSeconds: 1800 })
    const retry = attempts.findIndex((d) => d.eventId === failed.eventId && d.attempt === 2)
    // Everything else was delivered before the failed event's retry, half a second later.
    expect(retry).toBe(attempts.length - 1)
    expect(attempts[retry].ok).toBe(true)
    expect(new Set(verifiedEvents(stripe, receiver).map((event) => event.id)).size).toBe(
      emulator.events().length,
    )
  })
})

describe('a disabled endpoint', () => {
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
    const resend = await fetch(`${emulator.url}/_emulator/events/${first.id}/resend`, {
      method: 'POST',
    })
    expect(resend.status).toBe(400)
    expect(await resend.text()).toContain('disabled')

    await stripe.webhookEndpoints.update(endpoint.id, { disabled: false })
    const third = await emulator.trigger('customer.created')
    emulator.resend(first.id)
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
