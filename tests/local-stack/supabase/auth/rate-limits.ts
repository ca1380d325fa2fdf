import { isIP } from 'node:net'

import { AuthError } from './errors'

/**
 * The auth server's rate limits (supabase/auth `apilimiter`, `sbff`, `mail.go`), named as the
 * dashboard and config.toml name them: `tokenRefresh` (POST /token), `verify` (/verify) and
 * `otp` (each of /signup, /otp, /magiclink, /recover, /resend, PUT /user) per 5 minutes and
 * IP, and `emailSent`, the auth mails the whole project may send per hour.
 */
export interface RateLimitSettings {
  tokenRefresh: number
  verify: number
  otp: number
  emailSent: number
}

/** Supabase's defaults; the mail budget is the project's own (supabase/config.toml). */
export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  tokenRefresh: 150,
  verify: 30,
  otp: 30,
  emailSent: 4,
}

/** Every IP-limited bucket holds 30 requests (tollbooth's burst in apilimiter.go). */
const BURST = 30
const FIVE_MINUTES_S = 300
const HOUR_MS = 3_600_000

type Limiter = 'token' | 'verify' | 'signup' | 'otp' | 'magiclink' | 'recover' | 'resend' | 'user'

/** Token buckets per key: full at first, refilled at `perSecond`, never above BURST. */
function tokenBuckets(perSecond: number) {
  const buckets = new Map<string, { tokens: number; at: number }>()
  return (key: string, now = Date.now()) => {
    const bucket = buckets.get(key) ?? { tokens: BURST, at: now }
    bucket.tokens = Math.min(BURST, bucket.tokens + ((now - bucket.at) / 1000) * perSecond)
    bucket.at = now
    buckets.set(key, bucket)
    if (bucket.tokens < 1) return false
    bucket.tokens -= 1
    return true
  }
}

/** The limiter of a request, by method and path below /auth/v1 (api.go's routes). */
function limiterOf(request: Request, path: string): Limiter | undefined {
  const method = request.method === 'HEAD' ? 'GET' : request.method
  if (path === '/verify' && (method === 'GET' || method === 'POST')) return 'verify'
  if (method === 'PUT' && path === '/user') return 'user'
  if (method !== 'POST') return undefined
  if (path === '/token') {
    // token.go: an unsupported grant type is refused before the limiter counts it.
    const grant = new URL(request.url).searchParams.get('grant_type') ?? ''
    return ['password', 'refresh_token', 'pkce', 'id_token'].includes(grant) ? 'token' : undefined
  }
  const byPath: Record<string, Limiter> = {
    '/signup': 'signup',
    '/otp': 'otp',
    '/magiclink': 'magiclink',
    '/recover': 'recover',
    '/resend': 'resend',
  }
  return byPath[path]
}

/**
 * The address `Sb-Forwarded-For` names, as Go's `net.ParseIP(value).String()` gives it, or
 * undefined when it is anything but one address (GoTrue takes a list's leftmost entry; the
 * stand-in is stricter: a server forwarding one visitor sends one).
 */
export function forwardedAddress(header: string | null): string | undefined {
  const value = header?.trim() ?? ''
  if (isIP(value) === 4) return value
  if (isIP(value) !== 6 || value.includes('%')) return undefined
  const address = new URL(`http://[${value}]`).hostname.slice(1, -1)
  const mapped = /^::ffff:([\da-f]{1,4}):([\da-f]{1,4})$/.exec(address)
  if (!mapped) return address
  const [high, low] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)]
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}

export interface AuthLimits {
  limits(request: Request, path: string): boolean
  /** Counts the request against its client's bucket; throws 429 over_request_rate_limit. */
  hit(request: Request, path: string, peer: string | undefined): void
  /** Counts one mail against the project's hourly budget. */
  mailSent(): void
  clients(): string[]
}

/** The limiters of one auth server; the client is the forwarded address, else the peer. */
export function createAuthLimits(
  settings: RateLimitSettings,
  options: { sbForwardedFor: boolean },
): AuthLimits {
  // One bucket per endpoint, each of the otp ones at `otp`'s rate.
  const rates: Partial<Record<Limiter, number>> = {
    token: settings.tokenRefresh,
    verify: settings.verify,
  }
  const buckets = new Map<Limiter, ReturnType<typeof tokenBuckets>>()
  const bucket = (limiter: Limiter) => {
    if (!buckets.has(limiter))
      buckets.set(limiter, tokenBuckets((rates[limiter] ?? settings.otp) / FIVE_MINUTES_S))
    return buckets.get(limiter)!
  }
  // The mail budget: `emailSent` per hour from the server's start (ratelimit.IntervalLimiter).
  let mailHour = { start: Date.now(), count: 0 }
  const clients = new Set<string>()
  return {
    limits: (request, path) => limiterOf(request, path) !== undefined,
    hit(request, path, peer) {
      const limiter = limiterOf(request, path)
      if (!limiter) return
      const forwarded = request.headers.get('sb-forwarded-for')
      const address =
        (options.sbForwardedFor ? forwardedAddress(forwarded) : undefined) ?? peer ?? 'unknown'
      clients.add(address)
      if (!bucket(limiter)(address)) {
        throw new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached')
      }
    },
    mailSent() {
      const now = Date.now()
      if (now - mailHour.start >= HOUR_MS)
        mailHour = { start: now - ((now - mailHour.start) % HOUR_MS), count: 0 }
      if (mailHour.count++ >= settings.emailSent) {
        throw new AuthError(429, 'over_email_send_rate_limit', 'email rate limit exceeded')
      }
    },
    clients: () => [...clients],
  }
}

/** `[auth.email] max_frequency` (mail.go validateSentWithinFrequencyLimit). */
export function checkMailFrequency(sentAt: Date | string | null, maxFrequencySeconds: number) {
  if (!sentAt || maxFrequencySeconds <= 0) return
  const until = new Date(sentAt).getTime() + maxFrequencySeconds * 1000
  const now = Date.now()
  if (until > now) {
    throw new AuthError(
      429,
      'over_email_send_rate_limit',
      `For security purposes, you can only request this after ${Math.floor((until - now) / 1000)} seconds.`,
    )
  }
}
