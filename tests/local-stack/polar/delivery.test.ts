import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { POLAR_DELIVERY } from './index'
import { setup, verify } from './test-helpers'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
let env: Awaited<ReturnType<typeof setup>>

afterEach(async () => {
  await env.close()
})

async function twoEvents() {
  for (let i = 0; i < 2; i++) await env.polar.checkouts.create({ products: [PRO] })
}

describe('webhook delivery', () => {
  it("retries a failing event with the same webhook-id after dramatiq's backoff, while later events overtake it", async () => {
    env = await setup({ retry: { attempts: 5, baseDelayMs: 30 } })
    const script = [500, 503]
    let firstId: string | undefined
    env.receiver.respond = (_index, headers) => {
      const id = String(headers['webhook-id'])
      firstId ??= id
      return (id === firstId && script.shift()) || 200
    }
    await twoEvents()
    await env.emulator.idle()
    const [first, second] = env.emulator.deliveries()
    expect(first.attempts.map((a) => a.status)).toEqual([500, 503, 200])
    expect(second).toMatchObject({ status: 'succeeded', attempts: [{ status: 200 }] })
    const times = first.attempts.map((a) => Date.parse(a.at))
    // compute_backoff(n, 2 s) on a clock of 30/2000: n=1 → 30–60 ms, n=2 → 60–120 ms.
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(28)
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(58)
    // The FIFO guard holds the second event only until the first one's first attempt.
    const secondAt = Date.parse(second.attempts[0].at)
    expect(secondAt).toBeGreaterThanOrEqual(times[0] + first.attempts[0].durationMs)
    expect(secondAt).toBeLessThan(times[1])
    const bodies = await Promise.all(env.receiver.received.map((r) => verify(r)))
    expect(new Set(bodies.map((b) => b.data.id)).size).toBe(2)
  })

  it('parks events while no URL is set, then delivers them in order', async () => {
    env = await setup({ webhookUrl: undefined, retry: { attempts: 10, baseDelayMs: 1000 } })
    await twoEvents()
    await env.emulator.idle()
    expect(env.emulator.deliveries()).toMatchObject([{ status: 'pending', attempts: [] }, {}])
    env.emulator.setWebhookUrl(env.receiver.url)
    await env.emulator.idle()
    const ids = env.emulator.deliveries().map((d) => d.id)
    expect(env.receiver.received.map((r) => r.headers['webhook-id'])).toEqual(ids)
  })

  it('uses 10 attempts and a 2 s backoff capped at 20 minutes by default', async () => {
    env = await setup({ retry: undefined })
    env.receiver.respond = () => 500
    await env.polar.checkouts.create({ products: [PRO] })
    await new Promise((resolve) => setTimeout(resolve, 200))
    const [delivery] = env.emulator.deliveries()
    expect(delivery.status).toBe('retrying')
    const wait = Date.parse(delivery.nextAttemptAt!) - Date.parse(delivery.attempts[0].at)
    expect(wait).toBeGreaterThanOrEqual(1_900)
    expect(wait).toBeLessThanOrEqual(4_100)
    expect(POLAR_DELIVERY).toMatchObject({ attempts: 10, maxBackoffMs: 1_200_000 })
  })
})
