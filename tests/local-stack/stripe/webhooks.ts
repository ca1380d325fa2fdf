/** Signed webhook delivery: one endpoint, creation order, one at a time, bounded retries. */
import { createHmac } from 'node:crypto'
import type { DeliveryState, StripeEvent } from './store'

export interface Delivery {
  eventId: string
  type: string
  attempt: number
  url: string
  /** HTTP status of the endpoint's answer; null on a network error or timeout. */
  status: number | null
  ok: boolean
  /** The endpoint's answer (first 2,000 characters) or the network error. */
  response: string
  durationMs: number
  at: string
}

export interface RetryPolicy {
  attempts: number
  baseDelayMs: number
}

/** `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>`, as Stripe signs. */
export function signPayload(payload: string, secret: string, timestamp: number) {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')
  return `t=${timestamp},v1=${signature}`
}

export class WebhookDispatcher {
  private readonly queue: StripeEvent[] = []
  private readonly log: Delivery[] = []
  private running = false
  private waiters: (() => void)[] = []
  private timer: NodeJS.Timeout | undefined
  private wakeRetry: (() => void) | undefined
  private closed = false

  constructor(
    private url: string | undefined,
    private readonly secret: string,
    private readonly retry: RetryPolicy,
    private readonly states: Map<string, DeliveryState>,
    private readonly timeoutMs = 10_000,
  ) {}

  get endpointCount() {
    return this.url ? 1 : 0
  }

  setUrl(url: string) {
    this.url = url
    this.pump()
  }

  enqueue(event: StripeEvent) {
    this.states.set(event.id, 'pending')
    this.queue.push(event)
    this.pump()
  }

  deliveries(): Delivery[] {
    return this.log.map((delivery) => ({ ...delivery }))
  }

  /** Resolves once nothing is queued or in flight (or no endpoint is configured). */
  idle(): Promise<void> {
    if (this.closed) return Promise.resolve()
    if (!this.running && (this.queue.length === 0 || !this.url)) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  close() {
    this.closed = true
    clearTimeout(this.timer)
    this.wakeRetry?.()
    this.settle()
  }

  private pump() {
    if (this.running || this.closed || !this.url) return
    this.running = true
    void this.drain().finally(() => {
      this.running = false
      // Events enqueued while the loop was finishing still need a drain.
      if (this.queue.length > 0 && this.url && !this.closed) this.pump()
      else this.settle()
    })
  }

  private settle() {
    if (this.running && !this.closed) return
    const waiters = this.waiters
    this.waiters = []
    waiters.forEach((resolve) => resolve())
  }

  private async drain() {
    while (this.queue.length > 0 && this.url && !this.closed) {
      const event = this.queue[0]
      const delivered = await this.deliverWithRetries(event)
      this.queue.shift()
      // An event keeps "delivered" once any delivery (e.g. a resend) succeeded.
      if (delivered || this.states.get(event.id) !== 'delivered') {
        this.states.set(event.id, delivered ? 'delivered' : 'failed')
      }
    }
  }

  private async deliverWithRetries(event: StripeEvent) {
    for (let attempt = 1; attempt <= this.retry.attempts && !this.closed; attempt += 1) {
      if (await this.attempt(event, attempt)) return true
      if (attempt < this.retry.attempts)
        await this.sleep(this.retry.baseDelayMs * 2 ** (attempt - 1))
    }
    return false
  }

  private async attempt(event: StripeEvent, attempt: number) {
    const url = this.url as string
    const payload = JSON.stringify({ ...event, pending_webhooks: 1 }, null, 2)
    const started = Date.now()
    const record: Delivery = {
      eventId: event.id,
      type: event.type,
      attempt,
      url,
      status: null,
      ok: false,
      response: '',
      durationMs: 0,
      at: new Date(started).toISOString(),
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
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'manual',
      })
      record.status = response.status
      record.ok = response.status >= 200 && response.status < 300
      record.response = (await response.text()).slice(0, 2000)
    } catch (error) {
      record.response = describeError(error)
    }
    record.durationMs = Date.now() - started
    this.log.push(record)
    return record.ok
  }

  private sleep(ms: number) {
    return new Promise<void>((resolve) => {
      this.wakeRetry = resolve
      this.timer = setTimeout(resolve, ms)
    })
  }
}

function describeError(error: unknown) {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${error.name}: ${error.message}${cause}`
}
