import { describe, expect, it } from 'vitest'

import { reconcileProvider } from '../../app/billing/reconcile.server'
import { adminClient, createSignedInUser, testAppForFile } from './harness'
import { postStripeEvent, stripeEvent } from './stripe-fixtures'

/** The metrics endpoint: behind its token, with the series the operator's alerts read. */
const TOKEN = 'metrics-token-for-the-tests'
const app = testAppForFile({ env: { METRICS_TOKEN: TOKEN } })

const scrape = (token?: string) =>
  fetch(`${app.url}/metrics`, token ? { headers: { Authorization: `Bearer ${token}` } } : {})

/** The value of one sample (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}) {
  const line = text
    .split('\n')
    .find(
      (row) =>
        row.startsWith(name) &&
        (row[name.length] === ' ' || row[name.length] === '{') &&
        Object.entries(labels).every(([key, value]) => row.includes(`${key}="${value}"`)),
    )
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

describe('GET /metrics', () => {
  it('is refused without its token, and with a wrong one', async () => {
    const none = await scrape()
    expect(none.status).toBe(401)
    expect(await none.json()).toEqual({ success: false, message: 'Unauthorized' })
    expect((await scrape('not-the-token')).status).toBe(401)
  })

  it('answers with the named series after a few requests', async () => {
    const { id: userId } = await createSignedInUser(app)
    expect((await fetch(`${app.url}/pricing`)).status).toBe(200)
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200)
    expect((await fetch(`${app.url}/subscribe/pro`, { redirect: 'manual' })).status).toBe(302)
    expect((await postStripeEvent(app.url, { not: 'signed' }, { header: 'bad' })).status).toBe(400)
    const unhandled = stripeEvent('customer.created', { id: 'cus_metrics', object: 'customer' })
    expect((await postStripeEvent(app.url, unhandled)).status).toBe(200)
    // A mail waiting in the outbox (the tests deliver mails themselves).
    const queued = await adminClient(app).rpc('enqueue_notification', {
      p_user_id: userId,
      p_kind: 'password_changed',
      p_data: {},
    })
    expect(queued.error).toBeNull()
    await reconcileProvider('stripe')

    const response = await scrape(TOKEN)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await response.text()
    const pricing = { route: '/pricing', method: 'GET', status: '200' }
    expect(sample(text, 'http_request_duration_seconds_count', pricing)).toBe(1)
    expect(sample(text, 'http_request_duration_seconds_bucket', { ...pricing, le: '+Inf' })).toBe(1)
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/subscribe/:plan' })).toBe(
      1,
    )
    // Every provider's webhook is one route; its outcomes say which provider.
    const webhook = { route: '/api/webhooks/:provider', method: 'POST' }
    expect(sample(text, 'http_request_duration_seconds_count', { ...webhook, status: '400' })).toBe(
      1,
    )
    expect(sample(text, 'http_request_duration_seconds_count', { ...webhook, status: '200' })).toBe(
      1,
    )
    expect(
      sample(text, 'webhook_outcomes_total', { provider: 'stripe', outcome: 'unhandled' }),
    ).toBe(1)
    expect(sample(text, 'notification_outbox_depth')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'notification_outbox_oldest_age_seconds')).toBeGreaterThanOrEqual(0)
    expect(sample(text, 'reconcile_corrections')).toBeUndefined()
    for (const name of [
      'mail_failures_total',
      'rate_limit_refusals_total',
      'session_checks_unavailable_total',
      'reconcile_corrections',
      'process_cpu_seconds_total',
    ])
      expect(text).toContain(`# TYPE ${name} `)
  })
})
