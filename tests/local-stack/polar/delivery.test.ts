import { afterEach, describe, expect, it } from 'vitest'
import { LOCAL_CATALOG, catalogPlan } from '../catalog'
import { startPolarEmulator, type Delivery } from './index'
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
  it('retries a failing endpoint with the same webhook-id and holds later events back until it succeeds', async () => {
    const { polar, emulator, receiver } = await env({ retry: { attempts: 5, baseDelayMs: 30 } })
    receiver.respondWith(500, 503)
    const first = await polar.checkouts.create({ products: [PRO] })
    const second = await polar.checkouts.create({ products: [PRO] })
    await emulator.idle()

    const ids = receiver.received.map((r) => r.headers['webhook-id'])
    expect(ids).toHaveLength(4)
    expect(new Set(ids.slice(0, 3)).size).toBe(1)
    expect(ids[3]).not.toBe(ids[0])
    const bodies = await Promise.all(receiver.received.map((r) => verify(r)))
    expect(bodies.map((b) => (b.data as { id: string }).id)).toEqual([
      first.id,
      first.id,
      first.id,
      second.id,
    ])

    const [delivery] = emulator.deliveries()
    expect(delivery.status).toBe('succeeded')
    expect(delivery.attempts.map((a) => a.status)).toEqual([500, 503, 200])
    const times = delivery.attempts.map((a) => Date.parse(a.at))
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(25)
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(55)
    expect(emulator.deliveries()[1]).toMatchObject({
      status: 'succeeded',
      attempts: [{ status: 200 }],
    })
  })

  it('marks an event failed after its attempts, keeps going, and re-sends it with the same id', async () => {
    const { polar, emulator, receiver } = await env({ retry: { attempts: 2, baseDelayMs: 10 } })
    receiver.respondWith(500, 500)
    await polar.checkouts.create({ products: [PRO] })
    await polar.checkouts.create({ products: [PRO] })
    await emulator.idle()
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
