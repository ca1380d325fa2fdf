import { isIP } from 'node:net'

import ipaddr from 'ipaddr.js'
import * as z from 'zod/mini'

import { getEnv } from '~/env.server'
import { database, type DatabaseClient } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { checkedAnswer } from '~/lib/database/rpc.server'

import { rateLimitRefusals } from './metrics.server'
import { requestContext } from './request-context.server'

/** A limit: at most `limit` hits per key in each fixed window of `windowMs`. */
export interface RateLimitRule {
  limit: number
  windowMs: number
}

const rateLimitResult = z.object({
  allowed: z.boolean(),
  limit: z.number(),
  remaining: z.number(),
  retryAfterSeconds: z.number(),
})
/** The verdict for one hit. `retryAfterSeconds` is 0 when allowed. */
export type RateLimitResult = z.infer<typeof rateLimitResult>

/** Counts hits per key in fixed windows: in this process, or shared by every instance. */
export interface RateLimitStore {
  hit(key: string, rule: RateLimitRule): Promise<RateLimitResult>
}

/**
 * The in-process store: with several instances each counts on its own (the limit multiplies).
 * Memory stays bounded: expired windows are swept, past `maxKeys` the oldest key is forgotten.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>()

  constructor(private readonly options: { now?: () => number; maxKeys?: number } = {}) {}

  async hit(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const now = (this.options.now ?? Date.now)()
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
    const maxKeys = this.options.maxKeys ?? 10_000
    if (this.windows.size < maxKeys) return
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key)
    }
    // Still full: forget the oldest window (Map keeps insertion order).
    if (this.windows.size >= maxKeys) this.windows.delete(this.windows.keys().next().value!)
  }
}

/**
 * `rate_limit_hits` (service role only) counts in one atomic upsert: concurrent hits from any
 * instance count once each; the hits of one event-loop turn (a request's counters) go as one call.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  private batch?: { hits: [string, RateLimitRule][]; verdicts: Promise<RateLimitResult[]> }

  constructor(private readonly client: () => Pick<DatabaseClient, 'rpc'> = database) {}

  async hit(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const batch = (this.batch ??= { hits: [], verdicts: Promise.resolve().then(() => this.send()) })
    const index = batch.hits.push([key, rule]) - 1
    return (await batch.verdicts)[index]
  }

  private async send() {
    const { hits } = this.batch!
    this.batch = undefined
    const { data, error } = await this.client().rpc('rate_limit_hits', {
      p_keys: hits.map(([key]) => key),
      p_limits: hits.map(([, rule]) => rule.limit),
      p_window_ms: hits.map(([, rule]) => rule.windowMs),
    })
    if (error) throw databaseError('rate_limit_hits', error)
    const verdicts = checkedAnswer('rate_limit_hits', z.array(rateLimitResult), data)
    if (verdicts.length !== hits.length) throw new Error('rate_limit_hits: not a verdict per hit')
    return verdicts
  }
}

let store: RateLimitStore | undefined

export function getRateLimitStore(): RateLimitStore {
  store ??=
    getEnv().RATE_LIMIT_STORE === 'postgres'
      ? new PostgresRateLimitStore()
      : new MemoryRateLimitStore()
  return store
}

/** Replaces the process's store (tests: a fresh or failing one); undefined: back to configured. */
export function setRateLimitStore(next: RateLimitStore | undefined) {
  store = next
}

/** One verdict from several counters: allowed only if all allow; when denied, the longest wait. */
export function combineRateLimitResults(results: RateLimitResult[]): RateLimitResult {
  const denied = results.filter((result) => !result.allowed)
  const tightest = results.reduce((a, b) => (b.remaining < a.remaining ? b : a))
  if (denied.length === 0) return tightest
  return {
    allowed: false,
    limit: tightest.limit,
    remaining: 0,
    retryAfterSeconds: Math.max(...denied.map((result) => result.retryAfterSeconds)),
  }
}

/** The result, a refusal counted under `limit` for /metrics. */
export const countRefusal = (limit: string) => (result: RateLimitResult) => {
  if (!result.allowed) rateLimitRefusals.inc({ limit })
  return result
}

/** "1 minute", "5 minutes": a Retry-After for people. */
export function retryAfterText(seconds: number) {
  const count = Math.max(1, Math.ceil(seconds / 60))
  return count === 1 ? '1 minute' : `${count} minutes`
}

/** The key used for every request whose client cannot be identified (see `clientKey`). */
export const SHARED_CLIENT_KEY = 'shared'

function normaliseAddress(entry: string): string | null {
  let address = entry.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed) address = bracketed[1]
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'))
  const version = isIP(address)
  if (version !== 6) return version === 4 ? address : null
  const parsed = ipaddr.IPv6.parse(address)
  return parsed.isIPv4MappedAddress() ? parsed.toIPv4Address().toString() : parsed.toRFC5952String()
}

/**
 * An IPv6 client's /64: a host is handed a whole /64 (RFC 6177, RFC 7934), so keyed by its
 * own address one machine would get a fresh budget for each of its 2^64 addresses.
 */
function ipv6Network(address: string): string {
  const parts = ipaddr.IPv6.parse(address).parts.slice(0, 4)
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toRFC5952String()}/64`
}

/**
 * The client's rate-limit key, or `SHARED_CLIENT_KEY` when unknown (the Vite dev server, a
 * malformed header), so callers give that key a limit meant for all such clients together.
 */
export function clientKey(request: Request, proxies?: number, socketAddress?: string): string {
  const address = clientAddress(request, proxies, socketAddress)
  return address ? `ip:${isIP(address) === 6 ? ipv6Network(address) : address}` : SHARED_CLIENT_KEY
}

/**
 * The client's address (RFC 5952, IPv4-mapped as IPv4), or null, as `Sb-Forwarded-For` takes it.
 * Direct (`TRUSTED_PROXY_COUNT=0`): the socket's address. Behind N proxies: the Nth
 * `X-Forwarded-For` entry from the right (everything left of it is client-supplied, spoofable).
 */
export function clientAddress(
  request: Request,
  proxies: number = getEnv().TRUSTED_PROXY_COUNT,
  socketAddress: string | undefined = requestContext.getStore()?.clientAddress,
): string | null {
  if (proxies < 1) return socketAddress ? normaliseAddress(socketAddress) : null
  const entries = (request.headers.get('X-Forwarded-For') ?? '')
    .split(',')
    .filter((entry) => entry.trim() !== '')
  const entry = entries[entries.length - proxies]
  return entry === undefined ? null : normaliseAddress(entry)
}

/** A per-client limit: each identified client's budget, and all unidentified ones' together. */
export interface ClientRateLimit {
  client: RateLimitRule
  shared: RateLimitRule
}

const sharedRows = new Map<string, number>()

/**
 * The unidentified clients' budget is spread over 8 rows taken in turn (an eighth, rounded up,
 * each): a wrong TRUSTED_PROXY_COUNT must not queue every request on one row lock.
 */
export function clientCounter(scope: string, key: string, limits: ClientRateLimit) {
  if (key !== SHARED_CLIENT_KEY) return { key: `${scope}:${key}`, rule: limits.client }
  const row = sharedRows.get(scope) ?? 0
  sharedRows.set(scope, (row + 1) % 8)
  const rule = { ...limits.shared, limit: Math.ceil(limits.shared.limit / 8) }
  return { key: `${scope}:${key}:${row}`, rule }
}

/** Counts one request of `scope` against its client's budget, and with `account`, the account's. */
export async function hitClientRateLimit(
  request: Request,
  scope: string,
  limits: ClientRateLimit & { account?: RateLimitRule },
  account?: string,
) {
  const { key, rule } = clientCounter(scope, clientKey(request), limits)
  const store = getRateLimitStore()
  const hits = [store.hit(key, rule)]
  if (account && limits.account) hits.push(store.hit(`${scope}:account:${account}`, limits.account))
  return countRefusal(scope)(combineRateLimitResults(await Promise.all(hits)))
}
