import { createHash } from 'node:crypto'
import {
  SHARED_CLIENT_KEY,
  clientKey,
  hitRateLimits,
  retryAfterText,
  type RateLimitResult,
  type RateLimitRule,
} from '~/lib/rate-limit.server'

export type AuthFlow =
  | 'sign-in'
  | 'sign-up'
  | 'password-reset'
  | 'magic-link'
  | 'email-change'
  | 'password-check'
  | 'email-code'

interface FlowLimits {
  /** Per identified client (its socket address, or the trusted proxy's X-Forwarded-For entry). */
  client: RateLimitRule
  /** All clients that cannot be told apart (no address known), together. */
  shared: RateLimitRule
  /**
   * Per email address: for the password checks (sign-in, the current password in
   * settings), per address and client (guessing one account's password), so a stranger
   * elsewhere cannot lock the account out; for the flows that send mail, per address
   * whoever asks (no inbox gets flooded).
   */
  email: RateLimitRule
}

/** The flows that check a password: their email budget is per address and client. */
const PASSWORD_CHECKS: ReadonlySet<AuthFlow> = new Set(['sign-in', 'password-check', 'email-code'])

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/**
 * Budgets per flow. Sign-in allows a person's typos and several accounts behind one
 * address; the flows that send mail are tighter, because each hit costs a message to
 * someone's inbox. The per-email budget of sign-in is the highest of the email budgets
 * because a third party can spend it (to lock an account out for at most 15 minutes).
 */
export const AUTH_RATE_LIMITS: Record<AuthFlow, FlowLimits> = {
  'sign-in': {
    client: { limit: 20, windowMs: 15 * MINUTE },
    shared: { limit: 300, windowMs: 15 * MINUTE },
    email: { limit: 10, windowMs: 15 * MINUTE },
  },
  'sign-up': {
    client: { limit: 10, windowMs: HOUR },
    shared: { limit: 200, windowMs: HOUR },
    email: { limit: 5, windowMs: HOUR },
  },
  'password-reset': {
    client: { limit: 10, windowMs: HOUR },
    shared: { limit: 200, windowMs: HOUR },
    email: { limit: 5, windowMs: HOUR },
  },
  'magic-link': {
    client: { limit: 10, windowMs: HOUR },
    shared: { limit: 200, windowMs: HOUR },
    email: { limit: 5, windowMs: HOUR },
  },
  // Signed in, but mail goes to any address the form names: limited like the other mail.
  'email-change': {
    client: { limit: 10, windowMs: HOUR },
    shared: { limit: 200, windowMs: HOUR },
    email: { limit: 5, windowMs: HOUR },
  },
  // The 6-digit code of a confirmation mail: a million codes, so few guesses per address.
  'email-code': {
    client: { limit: 20, windowMs: 15 * MINUTE },
    shared: { limit: 300, windowMs: 15 * MINUTE },
    email: { limit: 5, windowMs: 15 * MINUTE },
  },
  // The current password in Account settings: a stolen session must not become a guesser.
  'password-check': {
    client: { limit: 20, windowMs: 15 * MINUTE },
    shared: { limit: 300, windowMs: 15 * MINUTE },
    email: { limit: 5, windowMs: 15 * MINUTE },
  },
}

/** An email address as a rate-limit key: normalised and hashed, so no address is stored. */
export function emailKey(email: string) {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)
}

/**
 * Counts one attempt of `flow` against the sender's budget and the email address's. Call it
 * once the submission is valid (so the address is known) and before anything is sent.
 */
export async function hitAuthRateLimit(
  request: Request,
  flow: AuthFlow,
  email: string,
): Promise<RateLimitResult> {
  const limits = AUTH_RATE_LIMITS[flow]
  const client = clientKey(request)
  return hitRateLimits([
    {
      key: `auth:${flow}:${client}`,
      rule: client === SHARED_CLIENT_KEY ? limits.shared : limits.client,
    },
    {
      key: PASSWORD_CHECKS.has(flow)
        ? `auth:${flow}:email:${emailKey(email)}:${client}`
        : `auth:${flow}:email:${emailKey(email)}`,
      rule: limits.email,
    },
  ])
}

/** The message of a 429 on an auth form. */
export function tooManyAttemptsMessage(retryAfterSeconds: number) {
  return `Too many attempts. Please wait ${retryAfterText(retryAfterSeconds)} and try again.`
}

/** The 429 init of an auth form's answer. */
export function tooManyAttemptsInit(limit: RateLimitResult, headers?: Headers) {
  const merged = new Headers(headers)
  merged.set('Retry-After', String(limit.retryAfterSeconds))
  return { status: 429, headers: merged }
}
