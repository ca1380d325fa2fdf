import { createHmac } from 'node:crypto'

import { type Attempt, DeliveryQueue } from '../http'
import { randomId } from './http'
import { API_VERSION } from './objects'
import type { DeliveryState, StripeEvent } from './store'

export interface Delivery extends Attempt {
  eventId: string
  type: string
  attempt: number
  /** A second delivery (shuffled mode's duplicates). */
  duplicate: boolean
  /** After a failure: emulated seconds until the next attempt; null when none follows. */
  nextAttemptInSeconds: number | null
}

/** Retries as a fixed backoff in real time: `attempts` in all, `baseDelayMs` doubling. */
export interface RetryPolicy {
  attempts: number
  baseDelayMs: number
}

/** Retries on the emulator's compressed clock: each delay in emulated seconds. */
export interface RetrySchedule {
  delaysSeconds: number[]
  timeScale: number
}

/**
 * Stripe's test mode: "retries three times over a few hours" (docs.stripe.com/webhooks,
 * "Automatic retries"); the exact intervals are not published. Here: 30 minutes, 1 hour
 * and 2 hours after the attempt before, an emulated hour passing in a real second.
 */
export const TEST_MODE_RETRIES: RetrySchedule = {
  delaysSeconds: [1800, 3600, 7200],
  timeScale: 3600,
}

export interface DeliveryOptions {
  /** `ordered` (default) or `shuffled`: at least once and in no order, as Stripe delivers. */
  mode?: 'ordered' | 'shuffled'
  /** Shuffled: the longest random wait before an event's first delivery (default 250 ms). */
  windowMs?: number
  /** Shuffled: the share of events delivered a second time (default 0.2). */
  duplicateRate?: number
  /** Shuffled: deliveries in flight at once (default 4). */
  concurrency?: number
  /** Shuffled: seed of the order and of the duplicates (default: a random one). */
  seed?: number
}

export interface WebhookEndpointObject {
  id: string
  object: 'webhook_endpoint'
  api_version: string
  application: null
  created: number
  description: string | null
  enabled_events: string[]
  livemode: false
  metadata: Record<string, string>
  status: 'enabled' | 'disabled'
  url: string
}

/** `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>`, as Stripe signs. */
function signPayload(payload: string, secret: string, timestamp: number) {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')
  return `t=${timestamp},v1=${signature}`
}

interface Job {
  event: StripeEvent
  attempt: number
  duplicate: boolean
}

/** An event as a "Thin" destination receives it (`v2.core.event`): no object data. */
function thinEvent(event: StripeEvent) {
  const object = event.data.object as { id: string; object: string }
  return {
    id: event.id,
    object: 'v2.core.event',
    type: `v1.${event.type}`,
    livemode: false,
    created: new Date(event.created * 1000).toISOString(),
    related_object: {
      id: object.id,
      type: object.object,
      url: `/v1/${object.object}s/${object.id}`,
    },
  }
}

/**
 * Ordered: one attempt at a time in creation order, a retry keeping its event's place (a
 * failing event holds the later ones back). Shuffled: each event waits a random time, so
 * later ones overtake it, and some are delivered twice.
 */
export class WebhookDispatcher extends DeliveryQueue<Job> {
  endpoint: WebhookEndpointObject | undefined
  payloadStyle: 'snapshot' | 'thin' = 'snapshot'
  private readonly log: Delivery[] = []
  private readonly delaysMs: number[]
  private readonly delaysSeconds: number[]
  private readonly shuffled: boolean
  private readonly random: () => number

  constructor(
    url: string | undefined,
    private readonly secret: string,
    retry: RetryPolicy | RetrySchedule,
    private readonly states: Map<string, DeliveryState>,
    private readonly now: () => number,
    private readonly options: DeliveryOptions = {},
  ) {
    const shuffled = options.mode === 'shuffled'
    super(shuffled ? { limit: options.concurrency ?? 4 } : { limit: 1, inOrder: true })
    this.shuffled = shuffled
    if ('delaysSeconds' in retry) {
      this.delaysSeconds = retry.delaysSeconds
      this.delaysMs = retry.delaysSeconds.map((seconds) => (seconds / retry.timeScale) * 1000)
    } else {
      this.delaysMs = Array.from(
        { length: Math.max(0, retry.attempts - 1) },
        (_, index) => retry.baseDelayMs * 2 ** index,
      )
      this.delaysSeconds = this.delaysMs.map((ms) => ms / 1000)
    }
    this.random = seededRandom(options.seed ?? Math.floor(Math.random() * 2 ** 32))
    if (url) this.setUrl(url)
  }

  /** How many endpoints an event is sent to now (its `pending_webhooks`). */
  get endpointCount() {
    return this.endpoint?.status === 'enabled' ? 1 : 0
  }

  setUrl(url: string) {
    this.endpoint ??= {
      id: randomId('we', 24),
      object: 'webhook_endpoint',
      api_version: API_VERSION,
      application: null,
      created: this.now(),
      description: null,
      enabled_events: ['*'],
      livemode: false,
      metadata: {},
      status: 'enabled',
      url,
    }
    this.endpoint.url = url
    this.pump()
  }

  /**
   * A disabled endpoint is sent nothing: events created meanwhile are not sent to it, and a
   * queued delivery or retry is dropped when its time comes (Stripe: "If your endpoint has
   * been disabled or deleted when Stripe attempts a retry, future retries of that event are
   * prevented").
   */
  setDisabled(disabled: boolean) {
    if (!this.endpoint) return
    this.endpoint.status = disabled ? 'disabled' : 'enabled'
    this.pump()
  }

  enqueue(event: StripeEvent) {
    const events = this.endpoint?.enabled_events ?? ['*']
    if (!events.includes('*') && !events.includes(event.type)) return false
    if (this.endpoint?.status === 'disabled') {
      if (!this.states.has(event.id)) this.states.set(event.id, 'not_sent')
      return false
    }
    if (this.states.get(event.id) !== 'delivered') this.states.set(event.id, 'pending')
    this.schedule({ event, attempt: 1, duplicate: false }, this.shuffledWait())
    this.pump()
    return true
  }

  deliveries(): Delivery[] {
    return this.log.map((delivery) => ({ ...delivery }))
  }

  protected target() {
    return this.endpoint?.url
  }

  private shuffledWait() {
    return Date.now() + (this.shuffled ? this.random() * (this.options.windowMs ?? 250) : 0)
  }

  protected async attempt(job: Job, url: string) {
    if (this.endpoint?.status === 'disabled') return this.finish(job, false)
    const { event, attempt } = job
    const body = this.payloadStyle === 'thin' ? thinEvent(event) : { ...event, pending_webhooks: 1 }
    const payload = JSON.stringify(body, null, 2)
    const timestamp = Math.floor(Date.now() / 1000)
    const result = await this.post(url, payload, {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      'stripe-signature': signPayload(payload, this.secret, timestamp),
      accept: '*/*; q=0.5, application/xml',
      'cache-control': 'no-cache',
    })
    const delay = result.ok || this.closed ? undefined : this.delaysMs[attempt - 1]
    this.log.push({
      ...result,
      eventId: event.id,
      type: event.type,
      attempt,
      duplicate: job.duplicate,
      nextAttemptInSeconds: result.ok ? null : (this.delaysSeconds[attempt - 1] ?? null),
    })
    if (result.ok) {
      this.finish(job, true)
      const duplicateRate = this.options.duplicateRate ?? 0.2
      if (this.shuffled && !job.duplicate && this.random() < duplicateRate)
        this.schedule({ event, attempt: 1, duplicate: true }, this.shuffledWait())
    } else if (delay === undefined) {
      this.finish(job, false)
    } else {
      job.attempt += 1
      this.schedule(job, Date.now() + delay)
    }
  }

  /** An event keeps "delivered" once any delivery (e.g. a resend) succeeded. */
  private finish(job: Job, delivered: boolean) {
    this.remove(job)
    if (delivered || this.states.get(job.event.id) !== 'delivered') {
      this.states.set(job.event.id, delivered ? 'delivered' : 'failed')
    }
  }
}

/** mulberry32: a small seeded generator, so a shuffled run can be repeated. */
function seededRandom(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
