import { createHash } from 'node:crypto'

import {
  clientCounter,
  clientKey,
  combineRateLimitResults,
  countRefusal,
  getRateLimitStore,
  type RateLimitResult,
  type RateLimitRule,
  retryAfterText,
} from '~/lib/server/rate-limit.server'
import { type GuessedFlow, queueAttemptsNotice } from '~/notifications/delivery.server'

import { afterAnswer } from './mail-requests.server'

interface FlowLimits {
  /** Per identified client (its socket address, or the trusted proxy's X-Forwarded-For entry). */
  client: RateLimitRule
  /** All clients that cannot be told apart (no address known), together. */
  shared: RateLimitRule
  /** Per address and client for secret checks (no stranger locks the account), else per address. */
  email: RateLimitRule
  /**
   * For secret checks, a ceiling per address over all clients (a botnet cannot add up budgets).
   * It pauses the check, even the right secret, never the emailed link: only the owner gets that.
   */
  account?: RateLimitRule
}

/**
 * One mail minute per address, account or not (sign-up and sign-in links): a page can say what
 * the auth server's own minute would refuse without telling whether the address has an account.
 */
const MAIL_MINUTE: ReadonlySet<AuthFlow> = new Set(['sign-up', 'magic-link'])

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

/** The flows that send mail: each hit costs a message to someone's inbox. */
const SENDS_MAIL: FlowLimits = {
  client: { limit: 10, windowMs: HOUR },
  shared: { limit: 200, windowMs: HOUR },
  email: { limit: 5, windowMs: HOUR },
}

/**
 * Sign-in allows a person's typos and several accounts behind one address. Its per-email budget
 * is the highest because a third party can spend it (to lock an account out for 15 minutes).
 */
export const AUTH_RATE_LIMITS = {
  'sign-in': {
    client: { limit: 20, windowMs: 15 * MINUTE },
    shared: { limit: 300, windowMs: 15 * MINUTE },
    email: { limit: 10, windowMs: 15 * MINUTE },
    account: { limit: 20, windowMs: 15 * MINUTE },
  },
  // Many people behind one address (an office, a campus) may each sign up once in an hour.
  'sign-up': { ...SENDS_MAIL, client: { limit: 30, windowMs: HOUR } },
  'password-reset': SENDS_MAIL,
  'magic-link': SENDS_MAIL,
  // Signed in, but mail goes to any address the form names: limited like the other mail.
  'email-change': SENDS_MAIL,
  // The 6-digit code of a confirmation mail: a million codes, so few guesses per address.
  'email-code': FEW_GUESSES,
  // The current password in Account settings: a stolen session must not become a guesser.
  'password-check': FEW_GUESSES,
} satisfies Record<string, FlowLimits>

type AuthFlow = keyof typeof AUTH_RATE_LIMITS

/** An email address as a rate-limit key: normalised and hashed, so no address is stored. */
export function emailKey(email: string) {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)
}

/** Counts a valid submission before anything is sent; `paused`: offer the emailed link instead. */
export async function hitAuthRateLimit(
  request: Request,
  flow: AuthFlow,
  email: string,
): Promise<RateLimitResult & { paused: boolean; minute?: RateLimitResult }> {
  const limits: FlowLimits = AUTH_RATE_LIMITS[flow]
  const { email: perEmail, account } = limits
  const client = clientKey(request)
  const address = emailKey(email)
  const store = getRateLimitStore()
  const emailScope = PASSWORD_CHECKS.has(flow) ? `${address}:${client}` : address
  const byClientCounter = clientCounter(`auth:${flow}`, client, limits)
  // One statement: the store sends the hits of one tick together.
  const [byClient, byEmail, ceiling, minute] = await Promise.all([
    store.hit(byClientCounter.key, byClientCounter.rule),
    store.hit(`auth:${flow}:email:${emailScope}`, perEmail),
    account && store.hit(`auth:${flow}:account:${address}`, account),
    MAIL_MINUTE.has(flow)
      ? store.hit(`auth:mail-minute:${address}`, { limit: 1, windowMs: MINUTE })
      : undefined,
  ])
  const paused = ceiling?.allowed === false
  if (paused && account) {
    // After the answer, so its time never tells an account; a window's first refusal notifies.
    afterAnswer('attempts-notice', async () => {
      const notice = { limit: 1, windowMs: account.windowMs }
      const first = await getRateLimitStore().hit(`auth:${flow}:notice:${address}`, notice)
      const minutes = Math.max(1, Math.ceil(ceiling.retryAfterSeconds / 60))
      if (first.allowed) await queueAttemptsNotice(email, flow as GuessedFlow, minutes)
    })
  }
  const results = ceiling ? [byClient, byEmail, ceiling] : [byClient, byEmail]
  return { ...countRefusal(`auth:${flow}`)(combineRateLimitResults(results)), paused, minute }
}

export function tooManyAttemptsMessage(retryAfterSeconds: number, what = 'attempts') {
  return `Too many ${what}. Please wait ${retryAfterText(retryAfterSeconds)} and try again.`
}

/** Says what still works. */
export function pausedCheckMessage(flow: GuessedFlow, retryAfterSeconds: number) {
  const wait = retryAfterText(retryAfterSeconds)
  return {
    'sign-in': `Too many sign-in attempts were made for this account, so password sign-in is paused for ${wait}. We can email you a sign-in link instead.`,
    'password-check': `Too many wrong current passwords were entered for your account, so changing the password here is paused for ${wait}. You can still change it with a reset link we email you.`,
    'email-code': `Too many codes were tried for this address, so codes are paused for ${wait}. Open the link in the email instead, or send a new email below.`,
  }[flow]
}

export function tooManyAttemptsInit(limit: RateLimitResult, headers?: Headers) {
  const merged = new Headers(headers)
  merged.set('Retry-After', String(limit.retryAfterSeconds))
  return { status: 429, headers: merged }
}
