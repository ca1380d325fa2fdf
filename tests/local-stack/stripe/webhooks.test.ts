import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'

import { LOCAL_CATALOG } from '../catalog'
import { startStripeEmulator, type StripeEmulator } from './index'
import {
  API_KEY,
  sdkFor,
  setupStack,
  startReceiver,
  subscribeThroughCheckout,
  verifiedEvents,
  WEBHOOK_SECRET,
} from './test-support'
import { TEST_MODE_RETRIES } from './webhooks'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

async function stackWith(
  options: Parameters<typeof setupStack>[0] = {},
  respond?: (index: number) => number,
) {
  const stack = await setupStack(options, respond)
  cleanups.push(stack.teardown)
  return stack
}

async function postJson(emulator: StripeEmulator, path: string, body: unknown, method = 'POST') {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('webhook delivery', () => {
  it('signs so that the real SDK verifies, and a wrong secret fails', async () => {
    const { emulator, stripe, receiver } = await stackWith()
    const event = await emulator.trigger('customer.created', { email: 'sig@example.com' })
    await emulator.idle()
    const [request] = receiver.received
    const header = String(request.headers['stripe-signature'])
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    const verified = stripe.webhooks.constructEvent(request.body, header, WEBHOOK_SECRET)
    expect(verified).toMatchObject({ id: event.id, type: 'customer.created', pending_webhooks: 1 })
    expect(verified.data.object).toMatchObject({ object: 'customer', email: 'sig@example.com' })
    expect(() => stripe.webhooks.constructEvent(request.body, header, 'whsec_other')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    )
  })

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
    const pending = await stripe.events.list({ delivery_success: false })
    expect(pending.data).toHaveLength(0)
  })

  it('gives up after the bounded attempts, keeps the event, and resends it on demand', async () => {
    let failing = true
    const { emulator, stripe, receiver } = await stackWith({}, () => (failing ? 503 : 200))
    const event = await emulator.trigger('customer.created')
    await emulator.idle()
    expect(emulator.deliveries().map((d) => d.attempt)).toEqual([1, 2, 3, 4])
    const undelivered = await stripe.events.list({ delivery_success: false })
    expect(undelivered.data.map((item) => item.id)).toEqual([event.id])
    failing = false
    const resend = await postJson(emulator, `/_emulator/events/${event.id}/resend`, {})
    expect(resend).toEqual({ status: 200, body: { resent: event.id } })
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

  it('survives a network error and delivers queued events once a URL is set', async () => {
    const emulator = await startStripeEmulator({
      catalog: LOCAL_CATALOG,
      webhookSecret: WEBHOOK_SECRET,
      apiKey: API_KEY,
      retry: { attempts: 2, baseDelayMs: 5 },
    })
    cleanups.push(() => emulator.close())
    await emulator.trigger('customer.created')
    await emulator.idle()
    expect(emulator.deliveries()).toHaveLength(0)
    emulator.setWebhookUrl('http://127.0.0.1:9/unreachable')
    await emulator.idle()
    expect(emulator.deliveries().map((d) => d.status)).toEqual([null, null])
    const receiver = await startReceiver()
    cleanups.push(receiver.close)
    emulator.setWebhookUrl(receiver.url)
    const second = await emulator.trigger('customer.created')
    await emulator.idle()
    expect(verifiedEvents(sdkFor(emulator), receiver).map((event) => event.id)).toEqual([second.id])
  })
})

describe('renew', () => {
  it('renews a subscription with a new paid invoice and fails a payment on demand', async () => {
    const { emulator, stripe, receiver } = await stackWith()
    const { subscriptionId } = await subscribeThroughCheckout(stripe, emulator)
    const before = await stripe.subscriptions.retrieve(subscriptionId)
    receiver.received.length = 0
    const renewed = await postJson(emulator, `/_emulator/subscriptions/${subscriptionId}/renew`, {})
    expect(renewed.status).toBe(200)
    await emulator.idle()
    const renewal = verifiedEvents(stripe, receiver)
    expect(renewal.map((event) => event.type)).toEqual([
      'customer.subscription.updated',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
    ])
    const after = await stripe.subscriptions.retrieve(subscriptionId)
    expect(after.items.data[0].current_period_start).toBe(before.items.data[0].current_period_end)
    expect(renewal[4].data.object).toMatchObject({
      billing_reason: 'subscription_cycle',
      amount_paid: 2900,
    })
    receiver.received.length = 0
    const failed = await postJson(emulator, `/_emulator/subscriptions/${subscriptionId}/renew`, {
      fail: true,
    })
    expect(failed.status).toBe(200)
    await emulator.idle()
    const failure = verifiedEvents(stripe, receiver)
    expect(failure[3].data.object).toMatchObject({
      status: 'open',
      amount_paid: 0,
      attempt_count: 1,
    })
    expect(failure.map((event) => event.type)).toEqual([
      'customer.subscription.updated',
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_failed',
      'customer.subscription.updated',
    ])
    expect((await stripe.subscriptions.retrieve(subscriptionId)).status).toBe('past_due')
  })
})

describe('admin pages', () => {
  it('lists deliveries as HTML, each with its Resend button, and as JSON', async () => {
    const { emulator } = await stackWith({}, (index) => (index === 0 ? 400 : 200))
    const event = await emulator.trigger('customer.created')
    await emulator.idle()
    const json = (await (
      await fetch(`${emulator.url}/_emulator/deliveries?format=json`)
    ).json()) as {
      deliveries: { eventId: string; status: number }[]
    }
    expect(json.deliveries.map((d) => [d.eventId, d.status])).toEqual([
      [event.id, 400],
      [event.id, 200],
    ])
    const html = await (await fetch(`${emulator.url}/_emulator/deliveries`)).text()
    expect(html).toContain('<h1>Webhook deliveries</h1>')
    expect(html).toContain(`aria-label="Resend ${event.id}"`)
    expect(html).toContain('failing #0')
  })
})

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
