import { createHmac, randomUUID } from 'node:crypto'
import type { Delivery } from './types'

/** Polar treats a delivery as failed when the endpoint takes longer than this. */
const ATTEMPT_TIMEOUT_MS = 10_000
const MAX_BACKOFF_FACTOR = 64

/**
 * Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with
 * the UTF-8 bytes of the secret exactly as configured. `@polar-sh/sdk` 1.0.1 `validateEvent`
 * tries this key first (and 0.x SDKs use only this key).
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string) {
  const digest = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')
  return `v1,${digest}`
}

export interface DispatcherOptions {
  secret: string
  url?: string
  attempts: number
  baseDelayMs: number
}

/**
 * Delivers events to one endpoint, one at a time and in creation order: a newer event waits
 * until every earlier one succeeded or gave up. Failures retry with bounded exponential
 * backoff; an event that exhausts its attempts stays listed as `failed` and can be re-sent.
 * Without an endpoint, events are kept as `pending` and go out once one is set.
 */
export class WebhookDispatcher {
  private readonly all: Delivery[] = []
  private queue: Delivery[] = []
  private url: string | undefined
  private busy = false
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private readonly abort = new AbortController()
  private waiters: (() => void)[] = []
  /** Attempts made before the current round (a re-send starts a fresh round of retries). */
  private readonly roundStart = new WeakMap<Delivery, number>()

  constructor(private readonly options: DispatcherOptions) {
    this.url = options.url
  }

  /** Records an event (body frozen now) and schedules its delivery. */
  enqueue(type: string, data: unknown): Delivery {
    const id = randomUUID()
    const timestamp = new Date().toISOString()
    const body = JSON.stringify({ type, timestamp, api_version: '2026-10', data })
    const delivery: Delivery = {
      id,
      type,
      body,
      createdAt: timestamp,
      status: 'pending',
      attempts: [],
      nextAttemptAt: null,
    }
    this.all.push(delivery)
    this.queue.push(delivery)
    this.roundStart.set(delivery, 0)
    this.pump()
    return delivery
  }

  /** Queues an event again with the same `webhook-id` and body (a re-send from the dashboard). */
  resend(id: string): Delivery | undefined {
    const delivery = this.all.find((d) => d.id === id)
    if (!delivery) return undefined
    if (!this.queue.includes(delivery)) {
      delivery.status = 'pending'
      delivery.nextAttemptAt = null
      this.queue.push(delivery)
      this.roundStart.set(delivery, delivery.attempts.length)
    }
    this.pump()
    return delivery
  }

  setUrl(url: string | undefined) {
    this.url = url
    this.pump()
  }

  getUrl() {
    return this.url
  }

  list(): Delivery[] {
    return this.all.map((d) => ({ ...d, attempts: d.attempts.map((a) => ({ ...a })) }))
  }

  /** Resolves when nothing is in flight or waiting for a retry (events parked without an endpoint do not count). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  close() {
    this.closed = true
    clearTimeout(this.timer)
    this.abort.abort()
    this.notifyIdle(true)
  }

  private isIdle() {
    return this.closed || !this.url || this.queue.length === 0
  }

  private notifyIdle(force = false) {
    if (!force && !this.isIdle()) return
    const waiters = this.waiters
    this.waiters = []
    for (const resolve of waiters) resolve()
  }

  private pump() {
    if (this.busy || this.closed || this.timer) return
    const head = this.queue[0]
    if (!head || !this.url) return this.notifyIdle()
    const wait = head.nextAttemptAt ? Date.parse(head.nextAttemptAt) - Date.now() : 0
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        this.pump()
      }, wait)
      return
    }
    this.busy = true
    void this.attempt(head, this.url).finally(() => {
      this.busy = false
      this.pump()
    })
  }

  private async attempt(delivery: Delivery, url: string) {
    delivery.status = 'delivering'
    const webhookTimestamp = Math.floor(Date.now() / 1000)
    const started = Date.now()
    const attempt = {
      at: new Date(started).toISOString(),
      webhookTimestamp,
      status: null as number | null,
      error: null as string | null,
      responseBody: '',
      durationMs: 0,
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'polar-local-emulator',
          'webhook-id': delivery.id,
          'webhook-timestamp': String(webhookTimestamp),
          'webhook-signature': signWebhook(
            this.options.secret,
            delivery.id,
            webhookTimestamp,
            delivery.body,
          ),
        },
        body: delivery.body,
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
      })
      attempt.status = response.status
      attempt.responseBody = (await response.text()).slice(0, 2000)
    } catch (error) {
      attempt.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    }
    attempt.durationMs = Date.now() - started
    delivery.attempts.push(attempt)
    if (this.closed) return
    const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300
    const tries = delivery.attempts.length - (this.roundStart.get(delivery) ?? 0)
    if (ok || tries >= this.options.attempts) {
      delivery.status = ok ? 'succeeded' : 'failed'
      delivery.nextAttemptAt = null
      this.queue.shift()
      return
    }
    const delay = this.options.baseDelayMs * Math.min(2 ** (tries - 1), MAX_BACKOFF_FACTOR)
    delivery.status = 'retrying'
    delivery.nextAttemptAt = new Date(Date.now() + delay).toISOString()
  }
}
