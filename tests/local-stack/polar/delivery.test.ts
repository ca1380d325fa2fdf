import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { type Delivery, POLAR_DELIVERY, startPolarEmulator } from './index'
import { SECRET, setup, startReceiver, TOKEN, verify } from './test-helpers'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const cleanups: (() => Promise<void>)[] = []

afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

async function env(options: Parameters<typeof setup>[0] = {}) {
  const created = await setup(options)
  cleanups.push(created.close)
  return created
}

describe('webhook delivery', () => {
  it('retries a failing event with the same webhook-id while later events overtake it (FIFO guard only until its first attempt)', async () => {
    const { polar, emulator, receiver } = await env({ retry: { attempts: 5, baseDelayMs: 30 } })
    const script = [500, 503]
    let firstId: string | undefined
    receiver.respondByEvent((id) => {
      firstId ??= id
      return id === firstId ? script.shift() : undefined
    })
    const first = await polar.checkouts.create({ products: [PRO] })
    const second = await polar.checkouts.create({ products: [PRO] })
    await emulator.idle()

    const bodies = await Promise.all(receiver.received.map((r) => verify(r)))
    const order = bodies.map((b) => (b.data as { id: string }).id)
    // The first event is tried first (the guard holds the second until then); its retries
    // come after the second event went out.
    expect(order[0]).toBe(first.id)
    expect(order.indexOf(second.id)).toBeLessThan(order.lastIndexOf(first.id))
    expect(order.filter((id) => id === first.id)).toHaveLength(3)

    const [delivery, next] = emulator.deliveries()
    expect(delivery.status).toBe('succeeded')
    expect(delivery.attempts.map((a) => a.status)).toEqual([500, 503, 200])
    const times = delivery.attempts.map((a) => Date.parse(a.at))
    // compute_backoff(n, 2 s) on a clock of 30/2000: n=1 → 30–60 ms, n=2 → 60–120 ms.
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(28)
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(58)
    expect(next).toMatchObject({ status: 'succeeded', attempts: [{ status: 200 }] })
    expect(Date.parse(next.attempts[0].at)).toBeGreaterThanOrEqual(times[0])
    expect(Date.parse(next.attempts[0].at)).toBeLessThan(times[1])
  })

  it('holds a later event back while an earlier one under a minute old has not been tried, not longer', async () => {
    const receiver = await startReceiver()
    // Clock: 1000/2000, so the guard's minute is 30 s and its re-check 150 ms per event.
    const emulator = await startPolarEmulator({
      catalog: LOCAL_CATALOG,
      webhookSecret: SECRET,
      accessToken: TOKEN,
      retry: { attempts: 10, baseDelayMs: 1000 },
      localWebhooks: true,
      invoiceDelayMs: 0,
    })
    cleanups.push(async () => {
      await emulator.close()
      await receiver.close()
    })
    const create = () =>
      fetch(`${emulator.url}/v1/checkouts/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ products: [PRO] }),
      })
    await create()
    await create()
    emulator.setWebhookUrl(receiver.url)
    await emulator.idle()
    const [first, second] = emulator.deliveries()
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([first.id, second.id])
    expect(Date.parse(second.attempts[0].at)).toBeGreaterThanOrEqual(
      Date.parse(first.attempts[0].at) + first.attempts[0].durationMs,
    )
  })

  it('uses 10 attempts and a 2 s backoff capped at 20 minutes by default', async () => {
    const { emulator, polar, receiver } = await env({ retry: undefined })
    receiver.respondWith(500)
    await polar.checkouts.create({ products: [PRO] })
    await new Promise((resolve) => setTimeout(resolve, 200))
    const [delivery] = emulator.deliveries()
    expect(delivery.status).toBe('retrying')
    const wait = Date.parse(delivery.nextAttemptAt!) - Date.parse(delivery.attempts[0].at)
    expect(wait).toBeGreaterThanOrEqual(1_900)
    expect(wait).toBeLessThanOrEqual(4_100)
    expect(POLAR_DELIVERY).toMatchObject({
      attempts: 10,
      minBackoffMs: 2000,
      maxBackoffMs: 1_200_000,
      failureThreshold: 10,
    })
  })

  it('disables the endpoint after 10 consecutive failed events, skips pending ones, sends nothing new until enabled', async () => {
    const { polar, emulator, receiver } = await env({ retry: { attempts: 2, baseDelayMs: 4 } })
    receiver.respondWith(...Array.from({ length: 40 }, () => 500))
    for (let i = 0; i < 12; i++) await polar.checkouts.create({ products: [PRO] })
    await emulator.idle()
    const deliveries = emulator.deliveries()
    const failed = deliveries.filter((d) => d.status === 'failed')
    const skipped = deliveries.filter((d) => d.status === 'skipped')
    expect(failed).toHaveLength(10)
    expect(skipped.length + failed.length).toBe(12)
    expect(emulator.endpoint()).toMatchObject({ enabled: false, disabledAt: expect.any(String) })

    // Visible on the API and the page.
    const json = (await (
      await fetch(`${emulator.url}/_emulator/deliveries?format=json`)
    ).json()) as {
      endpoint: { enabled: boolean; disabled_at: string | null }
      deliveries: Delivery[]
    }
    expect(json.endpoint).toMatchObject({ enabled: false, disabled_at: expect.any(String) })
    expect(json.deliveries.filter((d) => d.status === 'skipped')).toHaveLength(skipped.length)
    const html = await (await fetch(`${emulator.url}/_emulator/deliveries`)).text()
    expect(html).toContain('Endpoint disabled')
    expect(html).toContain('skipped')

    // While disabled, new events are not created for the endpoint at all.
    const sent = receiver.received.length
    await polar.checkouts.create({ products: [PRO] })
    await emulator.idle()
    expect(emulator.deliveries()).toHaveLength(12)
    expect(receiver.received).toHaveLength(sent)

    // Enabling sends nothing by itself; a re-send of a skipped event does.
    receiver.respondWith() // from here on 200
    receiver.received.length = 0
    const enabled = await fetch(`${emulator.url}/_emulator/webhook-endpoint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    })
    expect(await enabled.json()).toMatchObject({ enabled: true, disabled_at: null })
    await emulator.idle()
    expect(receiver.received).toHaveLength(0)
    const target = skipped[0] ?? failed[0]
    emulator.resend(target.id)
    await emulator.idle()
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([target.id])
  })

  it('marks an event failed after its attempts, keeps going, and re-sends it with the same id', async () => {
    const { polar, emulator, receiver } = await env({ retry: { attempts: 2, baseDelayMs: 10 } })
    let firstId: string | undefined
    receiver.respondByEvent((id) => {
      firstId ??= id
      return id === firstId ? 500 : undefined
    })
    await polar.checkouts.create({ products: [PRO] })
    await polar.checkouts.create({ products: [PRO] })
    await emulator.idle()
    receiver.respondByEvent(undefined)
    const [failed, next] = emulator.deliveries()
    expect(failed).toMatchObject({ status: 'failed', attempts: [{ status: 500 }, { status: 500 }] })
    expect(next.status).toBe('succeeded')

    const response = await fetch(`${emulator.url}/_emulator/events/${failed.id}/resend`, {
      method: 'POST',
    })
    expect(response.status).toBe(202)
    expect(await response.json()).toMatchObject({ id: failed.id, type: 'checkout.created' })
    await emulator.idle()
    const last = receiver.received.at(-1)!
    expect(last.headers['webhook-id']).toBe(failed.id)
    expect(last.body).toBe(failed.body)
    await expect(verify(last)).resolves.toMatchObject({ type: 'checkout.created' })
    expect(emulator.deliveries()[0]).toMatchObject({ status: 'succeeded' })
    expect(emulator.deliveries()[0].attempts).toHaveLength(3)

    const unknown = await fetch(
      `${emulator.url}/_emulator/events/00000000-0000-4000-8000-000000000000/resend`,
      { method: 'POST' },
    )
    expect(unknown.status).toBe(404)
  })

  it('records network errors and delivers once the endpoint appears; parks events while no URL is set', async () => {
    const receiver = await startReceiver()
    const emulator = await startPolarEmulator({
      catalog: LOCAL_CATALOG,
      webhookSecret: SECRET,
      retry: { attempts: 3, baseDelayMs: 10 },
      invoiceDelayMs: 0,
      localWebhooks: true,
    })
    cleanups.push(async () => {
      await emulator.close()
      await receiver.close()
    })
    const create = () =>
      fetch(`${emulator.url}/v1/checkouts/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ products: [PRO] }),
      })
    await create()
    await emulator.idle()
    expect(emulator.deliveries()).toMatchObject([{ status: 'pending', attempts: [] }])

    emulator.setWebhookUrl('http://127.0.0.1:9/nothing-listens-here')
    await emulator.idle()
    const [unreachable] = emulator.deliveries()
    expect(unreachable.status).toBe('failed')
    expect(unreachable.attempts).toHaveLength(3)
    expect(unreachable.attempts[0]).toMatchObject({
      status: null,
      error: expect.stringContaining('fetch failed'),
    })

    emulator.setWebhookUrl(receiver.url)
    await create()
    emulator.resend(unreachable.id)
    await emulator.idle()
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([
      emulator.deliveries()[1].id,
      unreachable.id,
    ])
  })

  it('lists deliveries as HTML and JSON', async () => {
    const { polar, emulator } = await env()
    await polar.checkouts.create({ products: [PRO] })
    await emulator.idle()
    const json = (await (
      await fetch(`${emulator.url}/_emulator/deliveries?format=json`)
    ).json()) as {
      webhook_url: string
      deliveries: Delivery[]
    }
    expect(json.deliveries).toMatchObject([
      { type: 'checkout.created', status: 'succeeded', attempts: [{ status: 200 }] },
    ])
    expect(json.webhook_url).toMatch(/\/api\/webhooks\/polar$/)
    const html = await (await fetch(`${emulator.url}/_emulator/deliveries`)).text()
    expect(html).toContain('<h1>Webhook deliveries</h1>')
    expect(html).toContain('checkout.created')
    expect(html).toContain('>Resend</button>')
    expect(html).toContain('200 {&#34;received&#34;:true}')
  })
})
