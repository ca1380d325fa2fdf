import { createHash } from 'node:crypto'

import {
  clientKey,
  combineRateLimitResults,
  getRateLimitStore,
  type RateLimitResult,
  type RateLimitRule,
  retryAfterText,
  SHARED_CLIENT_KEY,
} from '~/lib/server/rate-limit.server'
import { type GuessedFlow, queueAttemptsNotice } from '~/notifications/delivery.server'

import { afterAnswer } from './mail-requests.server'

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
  /**
   * The flows that check a secret (a password, an emailed code): a ceiling per email address
   * over all clients together, so many clients (a botnet, one IPv6 network's addresses)
   * cannot add up their per-client budgets against one account. Reaching it pauses that
   * check for the address until its window ends (even the right secret is refused), never
   * the emailed link: only the owner receives that, so a stranger cannot lock them out.
   */
  account?: RateLimitRule
}

/** The flows that check a secret: their email budget is per address and client. */
const PASSWORD_CHECKS: ReadonlySet<AuthFlow> = new Set(['sign-in', 'password-check', 'email-code'])

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/** A secret with few guesses to spare (a 6-digit code, the current password in settings). */
const FEW_GUESSES: FlowLimits = {
  client: { limit: 20, windowMs: 15 * MINUTE },
  shared: { limit: 300, windowMs: 15 * MINUTE },
  email: { limit: 5, windowMs: 15 * MINUTE },
  account: { limit: 10, windowMs: 15 * MINUTE },
}

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
    account: { limit: 20, windowMs: 15 * MINUTE },
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
  'email-code': FEW_GUESSES,
  // The current password in Account settings: a stolen session must not become a guesser.
  'password-check': FEW_GUESSES,
}

/** An email address as a rate-limit key: normalised and hashed, so no address is stored. */
export function emailKey(email: string) {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)
}

/** The verdict on one auth attempt. */
export interface AuthRateLimitResult extends RateLimitResult {
  /**
   * The address's ceiling over all clients is reached (the flows with an `account` rule):
   * the check is paused for it, so the page offers the emailed link instead.
   */
  paused: boolean
}

/**
 * Counts one attempt of `flow` against the sender's budget and the email address's (and,
 * for the secret checks, the address's ceiling over all clients). Call it once the
 * submission is valid (so the address is known) and before anything is sent. The first
 * attempt refused by the ceiling in a window queues a notice to the address's owner (after
 * the answer).
 */
export async function hitAuthRateLimit(
  request: Request,
  flow: AuthFlow,
  email: string,
): Promise<AuthRateLimitResult> {
  const limits = AUTH_RATE_LIMITS[flow]
  const client = clientKey(request)
  const address = emailKey(email)
  const store = getRateLimitStore()
  const hits = [
    store.hit(
      `auth:${flow}:${client}`,
      client === SHARED_CLIENT_KEY ? limits.shared : limits.client,
    ),
    store.hit(
      PASSWORD_CHECKS.has(flow)
        ? `auth:${flow}:email:${address}:${client}`
        : `auth:${flow}:email:${address}`,
      limits.email,
    ),
  ]
  const results = await Promise.all(
    limits.account ? [...hits, store.hit(`auth:${flow}:account:${address}`, limits.account)] : hits,
  )
  const ceiling = results[2] as RateLimitResult | undefined
  const paused = ceiling !== undefined && !ceiling.allowed
  if (paused && limits.account) {
    // After the answer, like the other mail decisions: the answer's time must not depend on
    // whether the address has an account to notify.
    const { account } = limits
    afterAnswer('attempts-notice', () =>
      noticeOnce(flow as GuessedFlow, email, account, ceiling.retryAfterSeconds),
    )
  }
  return { ...combineRateLimitResults(results), paused }
}

/** Queues the owner's notice on the first refusal by the ceiling in a window (one per window). */
async function noticeOnce(flow: GuessedFlow, email: string, rule: RateLimitRule, seconds: number) {
  const first = await getRateLimitStore().hit(`auth:${flow}:notice:${emailKey(email)}`, {
    limit: 1,
    windowMs: rule.windowMs,
  })
  if (first.allowed) await queueAttemptsNotice(email, flow, Math.max(1, Math.ceil(seconds / 60)))
}

/** The message of a 429 on an auth form. */
export function tooManyAttemptsMessage(retryAfterSeconds: number) {
  return `Too many attempts. Please wait ${retryAfterText(retryAfterSeconds)} and try again.`
}

/** The message of a 429 when an address's ceiling paused the check: what still works. */
export function pausedCheckMessage(flow: GuessedFlow, retryAfterSeconds: number) {
  const wait = retryAfterText(retryAfterSeconds)
  switch (flow) {
    case 'sign-in':
      return `Too many sign-in attempts were made for this account, so password sign-in is paused for ${wait}. We can email you a sign-in link instead.`
    case 'password-check':
      return `Too many wrong current passwords were entered for your account, so changing the password here is paused for ${wait}. You can still change it with a reset link we email you.`
    case 'email-code':
      return `Too many codes were tried for this address, so codes are paused for ${wait}. Open the link in the email instead, or send a new email below.`
  }
}

/** The 429 init of an auth form's answer. */
export function tooManyAttemptsInit(limit: RateLimitResult, headers?: Headers) {
  const merged = new Headers(headers)
  merged.set('Retry-After', String(limit.retryAfterSeconds))
  return { status: 429, headers: merged }
}
