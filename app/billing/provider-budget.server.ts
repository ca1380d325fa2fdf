import { tooManyAttemptsInit } from '~/auth/rate-limits.server'
import {
  clientCounter,
  clientKey,
  combineRateLimitResults,
  countRefusal,
  getRateLimitStore,
  retryAfterText,
} from '~/lib/server/rate-limit.server'

/**
 * Every action that calls a payment provider (checkouts, portals, cancel and resume, plan
 * changes) counts against one budget per account and one per client (docs/security.md).
 */
export const PROVIDER_CALL_LIMITS = {
  account: { limit: 5, windowMs: 60_000 },
  client: { limit: 30, windowMs: 60_000 },
  shared: { limit: 300, windowMs: 60_000 },
}

/** Counts one such action of `userId`: null when allowed, else the 429's message and init. */
export async function providerCallRefusal(request: Request, userId: string, headers?: Headers) {
  const byClient = clientCounter('provider', clientKey(request), PROVIDER_CALL_LIMITS)
  const store = getRateLimitStore()
  const verdicts = await Promise.all([
    store.hit(`provider:account:${userId}`, PROVIDER_CALL_LIMITS.account),
    store.hit(byClient.key, byClient.rule),
  ])
  const limit = countRefusal('provider')(combineRateLimitResults(verdicts))
  if (limit.allowed) return null
  const wait = retryAfterText(limit.retryAfterSeconds)
  const error = `Too many billing requests. Please wait ${wait} and try again.`
  return { error, init: tooManyAttemptsInit(limit, headers) }
}
