import { createCookie } from '@remix-run/node'

import { safeNextPath } from '~/auth/safe-next-path'
import type { SignedInSession } from '~/auth/session.server'
import { getEnv } from '~/env.server'
import { logger } from '~/lib/server/logger.server'

/**
 * Where a newcomer was going when they signed up (the checkout of the plan they chose on
 * the pricing page). The confirmation link must land on /dashboard (the auth callback's
 * rule for sign-up), so the way on is kept twice: in a short-lived cookie in the browser
 * that signed up, and with the pending account itself (its user metadata, `after_sign_up`),
 * so a link opened on another device continues to the checkout too. The dashboard follows
 * it once and forgets both.
 */
const intentCookie = createCookie('after_sign_up', {
  httpOnly: true,
  sameSite: 'lax',
  path: '/',
  maxAge: 60 * 60 * 24,
})

/** The user-metadata key that keeps the way on with the account. */
const AFTER_SIGN_UP_KEY = 'after_sign_up'

/** Paths a sign-up may continue to: a plan's checkout. */
const CONTINUABLE = /^\/subscribe\/[a-z]+(\?provider=[a-z]+)?$/

/** `next` when a sign-up may continue there, else null. */
function continuablePath(next: unknown): string | null {
  const path = safeNextPath(next, '')
  return CONTINUABLE.test(path) ? path : null
}

/** The Set-Cookie that remembers `next` after a sign-up, or null when there is nothing to keep. */
export async function rememberAfterSignUp(next: string): Promise<string | null> {
  const path = continuablePath(next)
  return path ? intentCookie.serialize(path, { secure: getEnv().NODE_ENV === 'production' }) : null
}

/** The user metadata that keeps `next` with the new account (empty when nothing to keep). */
export function afterSignUpMetadata(next: string | undefined): Record<string, string> {
  const path = continuablePath(next)
  return path ? { [AFTER_SIGN_UP_KEY]: path } : {}
}

/**
 * Forgets the way on kept with the account and renews the session, so its token no longer
 * carries it (the next dashboard visit stays on the dashboard). A failure is logged: the
 * worst case is one more visit to the plan's checkout, which an existing plan turns away.
 */
async function forgetInAccount(session: SignedInSession) {
  const { error } = await session.supabase.auth.updateUser({ data: { [AFTER_SIGN_UP_KEY]: null } })
  if (!error) await session.supabase.auth.refreshSession()
  else logger.warn({ code: error.code }, 'plan chosen at sign-up not cleared')
}

/**
 * The remembered path (and the Set-Cookie that forgets the browser's copy), or null: the
 * browser's cookie first, else the account's own copy. Either way both are forgotten.
 */
export async function takeAfterSignUp(
  request: Request,
  session: SignedInSession,
): Promise<{ next: string; clear: string | null } | null> {
  const fromCookie = continuablePath(await intentCookie.parse(request.headers.get('Cookie')))
  const fromAccount = continuablePath(session.user.afterSignUp)
  if (session.user.afterSignUp !== undefined) await forgetInAccount(session)
  const next = fromCookie ?? fromAccount
  if (!next) return null
  return { next, clear: fromCookie ? await intentCookie.serialize('', { maxAge: 0 }) : null }
}
