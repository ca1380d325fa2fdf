import { createHmac, randomUUID } from 'node:crypto'

import { DeliveryQueue } from '../http'
import { now } from './state'
import type { Delivery } from './types'

/** Polar's delivery settings (`server/polar/config.py`, `webhook/tasks.py`), on the real clock. */
export const POLAR_DELIVERY = {
  /** `WEBHOOK_MAX_RETRIES`: HTTP attempts per event before it is failed. */
  attempts: 10,
  /** `WORKER_MIN_BACKOFF_MILLISECONDS`: the backoff factor (dramatiq `compute_backoff`). */
  minBackoffMs: 2_000,
  /** `max_backoff` of a delivery retry. */
  maxBackoffMs: 20 * 60_000,
  /** `WEBHOOK_FIFO_GUARD_DELAY_MS`: the wait per earlier undelivered event. */
  fifoGuardDelayMs: 300,
  /** `WEBHOOK_FIFO_GUARD_MAX_AGE`: older undelivered events no longer hold later ones back. */
  fifoGuardMaxAgeMs: 60_000,
  /** `WEBHOOK_FAILURE_THRESHOLD`: consecutive failed events that disable the endpoint. */
  failureThreshold: 10,
} as const

/** Standard Webhooks `v1,` signature keyed with the secret's UTF-8 bytes (every SDK takes it). */
export function signWebhook(secret: string, id: string, timestamp: number, body: string) {
  const digest = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')
  return `v1,${digest}`
}

interface DispatcherOptions {
  secret: string
  url?: string
  attempts: number
  /** The backoff factor (Polar: 2000 ms); every other delay is scaled by `baseDelayMs / 2000`. */
  baseDelayMs: number
}

/** The event types the emulator emits: a new endpoint's default selection here. */
export const POLAR_EVENT_TYPES = `checkout.created checkout.updated customer.created
  customer.updated order.created order.paid order.refunded order.updated refund.created
  subscription.active subscription.canceled subscription.created subscription.past_due
  subscription.revoked subscription.uncanceled subscription.updated`.split(/\s+/)

/**
 * Delivery as Polar's worker does it (`webhook/tasks.py`, `service.py`): a FIFO guard, retries
 * after dramatiq's `compute_backoff`, and the endpoint disabled after 10 failed events in a row
 * (pending events skipped, none created meanwhile). Without a URL, events wait as `pending`.
 */
export class WebhookDispatcher extends DeliveryQueue<Delivery> {
  private readonly all: Delivery[] = []
  private url: string | undefined
  private enabled = true
  private events = [...POLAR_EVENT_TYPES]
  private disabledAt: string | null = null
  private readonly scale: number

  constructor(private readonly options: DispatcherOptions) {
    super()
    this.url = options.url
    this.scale = options.baseDelayMs / POLAR_DELIVERY.minBackoffMs
  }

  /** Records an event (body frozen now) and schedules its delivery, unless the endpoint is disabled. */
  enqueue(type: string, data: unknown) {
    if (!this.enabled || !this.events.includes(type)) return
    const createdAt = now()
    const body = JSON.stringify({ type, timestamp: createdAt, api_version: '2026-10', data })
    const delivery: Delivery = {
      id: randomUUID(),
      type,
      body,
      createdAt,
      status: 'pending',
      attempts: [],
      nextAttemptAt: null,
    }
    this.all.push(delivery)
    this.schedule(delivery)
    this.pump()
    return delivery
  }

  /**
   * Queues an event again with the same `webhook-id` and body (a re-send from the
   * dashboard). On a disabled endpoint it is marked `skipped` at once.
   */
  resend(id: string): Delivery | undefined {
    const delivery = this.all.find((d) => d.id === id)
    if (!delivery || this.queue.includes(delivery)) return delivery
    if (!this.enabled) {
      delivery.status = 'skipped'
      return delivery
    }
    delivery.status = 'pending'
    delivery.nextAttemptAt = null
    this.schedule(delivery)
    this.queue.sort((a, b) => this.all.indexOf(a) - this.all.indexOf(b))
    this.pump()
    return delivery
  }

  setUrl(url: string | undefined) {
    this.url = url
    this.pump()
  }

  endpoint() {
    return {
      url: this.url ?? null,
      enabled: this.enabled,
      disabledAt: this.disabledAt,
      events: [...this.events],
    }
  }

  /** The endpoint's selection of event types (Settings → Webhooks → Events). */
  setEvents(events: string[]) {
    this.events = [...events]
  }

  /** The endpoint as `GET /v1/webhooks/endpoints` lists it (none while it has no URL). */
  endpointJson(organizationId: string) {
    if (!this.url) return []
    return [
      {
        id: '6c2f0e7a-1d4b-4c8e-9f3a-5b7d2e1c0a94',
        created_at: '2025-01-01T00:00:00.000Z',
        modified_at: this.disabledAt,
        url: this.url,
        api_version: '2026-10',
        format: 'raw',
        secret: this.options.secret,
        organization_id: organizationId,
        events: [...this.events],
        enabled: this.enabled,
        uses_standard_webhook_signature: true,
      },
    ]
  }

  setEnabled(enabled: boolean) {
    if (enabled === this.enabled) return
    if (!enabled) return this.disable()
    this.enabled = true
    this.disabledAt = null
    this.pump()
  }

  list(): Delivery[] {
    return this.all.map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...a })) }))
  }

  protected target() {
    return this.enabled ? this.url : undefined
  }

  /** The FIFO guard: held `count × 300 ms` (at most a minute) while earlier events are untried. */
  protected holdUntil(delivery: Delivery, now: number) {
    const oldest = now - POLAR_DELIVERY.fifoGuardMaxAgeMs * this.scale
    const earlier = this.all
      .slice(0, this.all.indexOf(delivery))
      .filter((d) => d.attempts.length === 0 && Date.parse(d.createdAt) >= oldest).length
    if (earlier === 0) return 0
    const delay = Math.min(
      earlier * POLAR_DELIVERY.fifoGuardDelayMs,
      POLAR_DELIVERY.fifoGuardMaxAgeMs,
    )
    return now + Math.max(1, delay * this.scale)
  }

  /** dramatiq `compute_backoff(n, factor, max_backoff)` with its jitter, on the emulator's clock. */
  private backoff(count: number) {
    const full =
      Math.min(POLAR_DELIVERY.minBackoffMs * 2 ** count, POLAR_DELIVERY.maxBackoffMs) * this.scale
    return full / 2 + Math.random() * (full / 2)
  }

  private finish(delivery: Delivery, status: 'succeeded' | 'failed' | 'skipped') {
    delivery.status = status
    delivery.nextAttemptAt = null
    this.remove(delivery)
  }

  protected async attempt(delivery: Delivery, url: string) {
    delivery.status = 'delivering'
    const timestamp = Math.floor(Date.now() / 1000)
    const attempt = await this.post(url, delivery.body, {
      'content-type': 'application/json',
      'user-agent': 'polar.sh webhooks',
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(this.options.secret, delivery.id, timestamp, delivery.body),
    })
    delivery.attempts.push(attempt)
    if (this.closed) return
    if (attempt.ok) return this.finish(delivery, 'succeeded')
    if (!this.enabled) return this.finish(delivery, 'skipped')
    // Polar counts every delivery of the event, re-sends included.
    const count = delivery.attempts.length
    if (count >= this.options.attempts) {
      this.finish(delivery, 'failed')
      return this.afterFailure()
    }
    const at = Date.now() + this.backoff(count)
    delivery.status = 'retrying'
    delivery.nextAttemptAt = new Date(at).toISOString()
    this.schedule(delivery, at)
  }

  /** `on_event_failed`: the endpoint's most recent completed events all failed → disable it. */
  private afterFailure() {
    const recent = this.all
      .filter((d) => d.status === 'succeeded' || d.status === 'failed')
      .slice(-POLAR_DELIVERY.failureThreshold)
    if (
      recent.length >= POLAR_DELIVERY.failureThreshold &&
      recent.every((d) => d.status === 'failed')
    ) {
      this.disable()
    }
  }

  private disable() {
    this.enabled = false
    this.disabledAt = new Date().toISOString()
    for (const delivery of [...this.queue]) {
      if (!this.inFlight.has(delivery)) this.finish(delivery, 'skipped')
    }
    this.pump()
  }
}
