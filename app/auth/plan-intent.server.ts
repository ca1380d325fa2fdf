import { safeNextPath } from '~/auth/safe-next-path'
import type { SignedInSession } from '~/auth/session.server'
import { logger } from '~/lib/server/logger.server'

import { authCookie } from './cookies.server'

// A plan chosen before signing up (docs/decisions/0023-journey-state-beside-the-browser.md).
const intentCookie = () => authCookie('after_sign_up', 60 * 60 * 24)

const AFTER_SIGN_UP_KEY = 'after_sign_up'

/** Paths a sign-up may continue to: a plan's checkout. */
const CONTINUABLE = /^\/subscribe\/[a-z]+(\?provider=[a-z]+)?$/

function continuablePath(next: unknown): string | null {
  const path = safeNextPath(next, '')
  return CONTINUABLE.test(path) ? path : null
}

export async function rememberAfterSignUp(next: string): Promise<string | null> {
  const path = continuablePath(next)
  return path ? intentCookie().serialize(path) : null
}

export function afterSignUpMetadata(next: string | undefined): Record<string, string> {
  const path = continuablePath(next)
  return path ? { [AFTER_SIGN_UP_KEY]: path } : {}
}

/**
 * Renews the session too, so its token no longer carries the way on. A failure is only logged:
 * the worst case is one more visit to the checkout, which an existing plan turns away.
 */
async function forgetInAccount(session: SignedInSession) {
  const { error } = await session.supabase.auth.updateUser({ data: { [AFTER_SIGN_UP_KEY]: null } })
  if (!error) await session.supabase.auth.refreshSession()
  else logger.warn({ code: error.code }, 'plan chosen at sign-up not cleared')
}

/** The browser's copy first, else the account's; either way both are forgotten. */
export async function takeAfterSignUp(
  request: Request,
  session: SignedInSession,
): Promise<{ next: string; clear: string | null } | null> {
  const fromCookie = continuablePath(await intentCookie().parse(request.headers.get('Cookie')))
  const fromAccount = continuablePath(session.user.afterSignUp)
  if (session.user.afterSignUp !== undefined) await forgetInAccount(session)
  const next = fromCookie ?? fromAccount
  if (!next) return null
  return { next, clear: fromCookie ? await intentCookie().serialize('', { maxAge: 0 }) : null }
}
