/**
 * Signed webhook delivery to the one webhook endpoint, at least once and, when asked, in no
 * particular order (as Stripe delivers), with Stripe's test-mode retries on a compressed
 * clock and an endpoint that can be disabled.
 */
import { createHmac } from 'node:crypto'

import { randomId } from './http'
import { API_VERSION } from './objects'
import type { DeliveryState, StripeEvent } from './store'

export interface Delivery {
  eventId: string
  type: string
  attempt: number
  /** HTTP status of the endpoint's answer; null on a network error or timeout. */
  status: number | null
  ok: boolean
  /** The endpoint's answer (first 2,000 characters) or the network error. */
  response: string
  at: string
  /** A second delivery of an event already delivered (shuffled mode's duplicates). */
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
  /** Emulated seconds that pass in one real second. */
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
  /**
   * `ordered` (default): one event at a time in creation order; a failing event holds the
   * later ones back until its attempts are used up. `shuffled`: at least once and not
   * ordered, as Stripe delivers: each event waits a random time within `windowMs` (so later
   * events overtake it), some are delivered twice, a failing event holds nothing back.
   */
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
  dueAt: number
  duplicate: boolean
}

/**
 * An event as a destination with the "Thin" payload style receives it (Stripe's
 * `v2.core.event`): its type and the object it concerns, with none of that object's data.
 */
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

export class WebhookDispatcher {
  /** The endpoint (Stripe's `webhook_endpoint`), once a URL is set. */
  endpoint: WebhookEndpointObject | undefined
  /** The destination's payload style: full snapshot events (the default) or thin ones. */
  payloadStyle: 'snapshot' | 'thin' = 'snapshot'
  private readonly jobs: Job[] = []
  private readonly log: Delivery[] = []
  private readonly delaysMs: number[]
  private readonly delaysSeconds: number[]
  private readonly mode: 'ordered' | 'shuffled'
  private readonly random: () => number
  private inFlight = 0
  private waiters: (() => void)[] = []
  private timer: NodeJS.Timeout | undefined
  private closed = false

  constructor(
    url: string | undefined,
    private readonly secret: string,
    retry: RetryPolicy | RetrySchedule,
    private readonly states: Map<string, DeliveryState>,
    private readonly now: () => number,
    private readonly options: DeliveryOptions = {},
  ) {
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
    this.mode = options.mode ?? 'ordered'
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
   * Disables or enables the endpoint. A disabled endpoint is sent nothing: events created
   * meanwhile are not sent to it, and a queued delivery or retry is dropped when its time
   * comes (Stripe: "If your endpoint has been disabled or deleted when Stripe attempts a
   * retry, future retries of that event are prevented").
   */
  setDisabled(disabled: boolean) {
    if (!this.endpoint) return
    this.endpoint.status = disabled ? 'disabled' : 'enabled'
    this.pump()
  }

  /** Queues an event (a new one, or a resend). Not sent at all while the endpoint is disabled. */
  enqueue(event: StripeEvent) {
    const events = this.endpoint?.enabled_events ?? ['*']
    if (!events.includes('*') && !events.includes(event.type)) return false
    if (this.endpoint?.status === 'disabled') {
      if (!this.states.has(event.id)) this.states.set(event.id, 'not_sent')
      return false
    }
    if (this.states.get(event.id) !== 'delivered') this.states.set(event.id, 'pending')
    const wait = this.mode === 'shuffled' ? this.random() * (this.options.windowMs ?? 250) : 0
    this.jobs.push({ event, attempt: 1, dueAt: Date.now() + wait, duplicate: false })
    this.pump()
    return true
  }

  deliveries(): Delivery[] {
    return this.log.map((delivery) => ({ ...delivery }))
  }

  /** Resolves once nothing is queued or in flight (or no endpoint is configured). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  close() {
    this.closed = true
    clearTimeout(this.timer)
    this.settle()
  }

  private isIdle() {
    return this.closed || (this.inFlight === 0 && (this.jobs.length === 0 || !this.endpoint))
  }

  private settle() {
    if (!this.isIdle()) return
    const waiters = this.waiters
    this.waiters = []
    waiters.forEach((resolve) => resolve())
  }

  /** Starts every delivery that is due (ordered: the first job only, one at a time). */
  private pump() {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.closed || !this.endpoint) return this.settle()
    const limit = this.mode === 'ordered' ? 1 : (this.options.concurrency ?? 4)
    while (this.inFlight < limit && this.jobs.length > 0) {
      const next = this.nextJob()
      if (next.dueAt > Date.now()) {
        this.timer = setTimeout(() => this.pump(), next.dueAt - Date.now())
        break
      }
      this.jobs.splice(this.jobs.indexOf(next), 1)
      if (this.endpoint.status === 'disabled') {
        this.finish(next.event, false)
        continue
      }
      this.inFlight += 1
      void this.run(next).finally(() => {
        this.inFlight -= 1
        this.pump()
      })
    }
    this.settle()
  }

  /** Ordered: the oldest job (a retry keeps its place). Shuffled: the one due first. */
  private nextJob() {
    if (this.mode === 'ordered') return this.jobs[0]
    return this.jobs.reduce((a, b) => (b.dueAt < a.dueAt ? b : a))
  }

  private async run(job: Job) {
    const ok = await this.attempt(job)
    if (ok) {
      this.finish(job.event, true)
      const duplicateRate = this.options.duplicateRate ?? 0.2
      if (this.mode === 'shuffled' && !job.duplicate && this.random() < duplicateRate) {
        const wait = this.random() * (this.options.windowMs ?? 250)
        this.jobs.push({ ...job, attempt: 1, dueAt: Date.now() + wait, duplicate: true })
      }
      return
    }
    const delay = this.delaysMs[job.attempt - 1]
    if (delay === undefined || this.closed) return this.finish(job.event, false)
    const retry = { ...job, attempt: job.attempt + 1, dueAt: Date.now() + delay }
    // Ordered: the retry keeps the event's place at the head of the queue.
    if (this.mode === 'ordered') this.jobs.unshift(retry)
    else this.jobs.push(retry)
  }

  /** An event keeps "delivered" once any delivery (e.g. a resend) succeeded. */
  private finish(event: StripeEvent, delivered: boolean) {
    if (delivered || this.states.get(event.id) !== 'delivered') {
      this.states.set(event.id, delivered ? 'delivered' : 'failed')
    }
  }

  private async attempt(job: Job) {
    const { event, attempt } = job
    const url = (this.endpoint as WebhookEndpointObject).url
    const body = this.payloadStyle === 'thin' ? thinEvent(event) : { ...event, pending_webhooks: 1 }
    const payload = JSON.stringify(body, null, 2)
    const started = Date.now()
    const record: Delivery = {
      eventId: event.id,
      type: event.type,
      attempt,
      status: null,
      ok: false,
      response: '',
      at: new Date(started).toISOString(),
      duplicate: job.duplicate,
      nextAttemptInSeconds: null,
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signPayload(payload, this.secret, Math.floor(started / 1000)),
          accept: '*/*; q=0.5, application/xml',
          'cache-control': 'no-cache',
        },
        body: payload,
        signal: AbortSignal.timeout(10_000),
        redirect: 'manual',
      })
      record.status = response.status
      record.ok = response.status >= 200 && response.status < 300
      record.response = (await response.text()).slice(0, 2000)
    } catch (error) {
      record.response = describeError(error)
    }
    if (!record.ok) record.nextAttemptInSeconds = this.delaysSeconds[attempt - 1] ?? null
    this.log.push(record)
    return record.ok
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

function describeError(error: unknown) {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${error.name}: ${error.message}${cause}`
}
