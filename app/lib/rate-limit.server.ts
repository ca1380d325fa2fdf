import { isIP } from 'node:net'

/** A limit: at most `limit` hits per key in each fixed window of `windowMs`. */
export interface RateLimitRule {
  limit: number
  windowMs: number
}

/** The verdict for one hit. `retryAfterSeconds` is 0 when allowed. */
export interface RateLimitResult {
  allowed: boolean
  limit: number
  remaining: number
  retryAfterSeconds: number
}

/**
 * Counts hits per key in fixed windows. Async and key-based so that an implementation
 * shared by every instance (a Postgres table keyed on `key`, upserted with the window
 * start) can replace the in-process default without touching callers.
 */
export interface RateLimitStore {
  hit(key: string, rule: RateLimitRule): Promise<RateLimitResult>
}

interface Window {
  count: number
  resetAt: number
}

/**
 * The in-process store: right for one instance; with several, each counts on its own (so
 * the effective limit is multiplied by the number of instances). Memory stays bounded:
 * expired windows are swept, and past `maxKeys` the oldest key is forgotten.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>()
  private readonly now: () => number
  private readonly maxKeys: number

  constructor(options: { now?: () => number; maxKeys?: number } = {}) {
    this.now = options.now ?? Date.now
    this.maxKeys = options.maxKeys ?? 10_000
  }

  async hit(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const now = this.now()
    let window = this.windows.get(key)
    if (!window || window.resetAt <= now) {
      this.windows.delete(key)
      this.makeRoom(now)
      window = { count: 0, resetAt: now + rule.windowMs }
      this.windows.set(key, window)
    }
    window.count += 1
    const allowed = window.count <= rule.limit
    return {
      allowed,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - window.count),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
    }
  }

  private makeRoom(now: number) {
    if (this.windows.size < this.maxKeys) return
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key)
    }
    // Still full: forget the oldest window (Map keeps insertion order).
    if (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next().value
      if (oldest !== undefined) this.windows.delete(oldest)
    }
  }
}

let store: RateLimitStore = new MemoryRateLimitStore()

/** The process's rate-limit store (in-process unless replaced at start-up). */
export function getRateLimitStore(): RateLimitStore {
  return store
}

/** Replaces the process's store: a shared (Postgres) store at start-up, or a fresh one in tests. */
export function setRateLimitStore(next: RateLimitStore) {
  store = next
}

/** The key used for every request whose client cannot be identified (see `clientKey`). */
export const SHARED_CLIENT_KEY = 'shared'

/**
 * `TRUSTED_PROXY_COUNT`: how many reverse proxies in front of the app append the address
 * they received the request from to `X-Forwarded-For`. Default 0: the header is not
 * trusted at all, because anyone can send it.
 */
export function trustedProxyCount(source: Record<string, string | undefined> = process.env) {
  const raw = source.TRUSTED_PROXY_COUNT?.trim() ?? ''
  if (raw === '') return 0
  if (!/^\d+$/.test(raw)) {
    throw new Error(`TRUSTED_PROXY_COUNT must be a whole number (0 or more), got "${raw}"`)
  }
  return Number(raw)
}

function normaliseAddress(entry: string): string | null {
  let address = entry.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed) address = bracketed[1]
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'))
  address = address.replace(/^::ffff:(?=[\d.]+$)/i, '').toLowerCase()
  return isIP(address) ? address : null
}

/**
 * Identifies the client for rate limiting. Remix loaders and actions do not see the
 * socket's address, so the only source is `X-Forwarded-For`, and only the entries our own
 * proxies appended can be trusted: with N trusted proxies the client is the Nth entry from
 * the right (everything left of it is client-supplied and spoofable). With no trusted
 * proxy, or a header that is missing or malformed, every request shares one key, so the
 * caller should give that key a limit meant for all clients together.
 */
export function clientKey(request: Request, proxies = trustedProxyCount()): string {
  if (proxies < 1) return SHARED_CLIENT_KEY
  const entries = (request.headers.get('X-Forwarded-For') ?? '')
    .split(',')
    .filter((entry) => entry.trim() !== '')
  const entry = entries[entries.length - proxies]
  const address = entry === undefined ? null : normaliseAddress(entry)
  return address ? `ip:${address}` : SHARED_CLIENT_KEY
}
