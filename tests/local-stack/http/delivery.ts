/**
 * Webhook delivery to one endpoint, as the payment stand-ins share it: a queue of items with
 * due times, attempts in flight, one timer, `idle()` and `close()`, and the POST of a signed
 * body. Each stand-in decides the order, the signature, the retries and what it records.
 */

/** Both providers fail an attempt whose endpoint takes longer than this. */
const ATTEMPT_TIMEOUT_MS = 10_000

export interface Attempt {
  at: string
  /** HTTP status of the endpoint's answer; null on a network error or timeout. */
  status: number | null
  ok: boolean
  /** The endpoint's answer (first 2,000 characters) or the network error. */
  response: string
  durationMs: number
}

export interface QueueOptions {
  limit?: number
  /** An item that is not due yet holds back every later one. */
  inOrder?: boolean
}

export abstract class DeliveryQueue<T> {
  protected queue: T[] = []
  protected readonly inFlight = new Set<T>()
  protected closed = false
  private readonly dueAt = new Map<T, number>()
  private timer: NodeJS.Timeout | undefined
  private waiters: (() => void)[] = []
  private readonly abort = new AbortController()

  constructor(private readonly queueOptions: QueueOptions = {}) {}

  /** The endpoint's URL while deliveries go out; undefined parks the queue. */
  protected abstract target(): string | undefined
  /** One attempt of a due item: POST it, then `schedule` its retry or `remove` it. */
  protected abstract attempt(item: T, url: string): Promise<void>

  /** A due item held back until the time returned (Polar's FIFO guard); 0 lets it go. */
  protected holdUntil(_item: T, _now: number) {
    return 0
  }

  protected schedule(item: T, at = Date.now()) {
    if (!this.queue.includes(item)) this.queue.push(item)
    this.dueAt.set(item, at)
  }

  protected remove(item: T) {
    this.queue = this.queue.filter((queued) => queued !== item)
    this.dueAt.delete(item)
  }

  /** Resolves once nothing is in flight or due (items parked without an endpoint do not count). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  close() {
    this.closed = true
    clearTimeout(this.timer)
    this.abort.abort()
    this.settle()
  }

  protected pump() {
    clearTimeout(this.timer)
    this.timer = undefined
    const url = this.target()
    if (this.closed || !url) return this.settle()
    const now = Date.now()
    let wake = Infinity
    for (const item of this.queue) {
      if (this.inFlight.size >= (this.queueOptions.limit ?? Infinity)) break
      if (this.inFlight.has(item)) continue
      let due = this.dueAt.get(item) ?? 0
      if (due <= now) {
        due = this.holdUntil(item, now)
        if (due > now) this.dueAt.set(item, due)
      }
      if (due > now) {
        wake = Math.min(wake, due)
        if (this.queueOptions.inOrder) break
        continue
      }
      this.inFlight.add(item)
      void this.attempt(item, url).finally(() => {
        this.inFlight.delete(item)
        this.pump()
      })
    }
    if (wake !== Infinity) this.timer = setTimeout(() => this.pump(), wake - now)
    this.settle()
  }

  protected async post(url: string, body: string, headers: Record<string, string>) {
    const started = Date.now()
    const attempt: Attempt = {
      at: new Date(started).toISOString(),
      status: null,
      ok: false,
      response: '',
      durationMs: 0,
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
        redirect: 'manual',
      })
      attempt.status = response.status
      attempt.ok = response.status >= 200 && response.status < 300
      attempt.response = (await response.text()).slice(0, 2000)
    } catch (error) {
      attempt.response = describeError(error)
    }
    attempt.durationMs = Date.now() - started
    return attempt
  }

  private isIdle() {
    return this.closed || (this.inFlight.size === 0 && (this.queue.length === 0 || !this.target()))
  }

  private settle() {
    if (!this.isIdle()) return
    const waiters = this.waiters
    this.waiters = []
    waiters.forEach((resolve) => resolve())
  }
}

function describeError(error: unknown) {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
  return `${error.name}: ${error.message}${cause}`
}
