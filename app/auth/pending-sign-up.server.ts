import { createCookie } from '@remix-run/node'
import { getEnv } from '~/env.server'
import { cookieSecret } from '~/lib/cookie-secret.server'
import { serviceRpc } from '~/lib/database-availability.server'
import { logger } from '~/lib/logger.server'
import { emailKey } from './rate-limits.server'

/**
 * The sign-up this browser is waiting on, so its "Check your email" page can notice when
 * the address is confirmed, wherever that happened (the link opened on a phone), and move
 * on. A signed HttpOnly cookie names the address (hashed) and the moment of the sign-up:
 * only the browser that signed up can ask, and only about an account made for that address
 * since then (`sign_up_confirmed_since`; the sign-up reaches the auth server after the page
 * is answered, auth.server.ts). An address that already had an account never confirms that
 * way: that page looks and behaves the same.
 */
const PENDING_SECONDS = 24 * 60 * 60

function pendingCookie() {
  return createCookie('pending_sign_up', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/sign-up',
    maxAge: PENDING_SECONDS,
    secrets: [cookieSecret('pending-sign-up')],
    secure: getEnv().NODE_ENV === 'production',
  })
}

interface PendingSignUp {
  /** When the sign-up was answered (ms since the epoch), less a margin for clock skew. */
  since: number
  email: string
}

/** Between this server's clock and the database's. */
const CLOCK_MARGIN_MS = 5_000

/** The Set-Cookie that remembers this browser's sign-up of `email`, made now. */
export function rememberPendingSignUp(email: string, now = Date.now()) {
  const value: PendingSignUp = { since: now - CLOCK_MARGIN_MS, email: emailKey(email) }
  return pendingCookie().serialize(value)
}

/** The Set-Cookie that forgets it (once the sign-up is confirmed). */
export function forgetPendingSignUp() {
  return pendingCookie().serialize('', { maxAge: 0 })
}

/**
 * True once the sign-up this browser made for `email` is confirmed; false while it waits,
 * when this browser made no such sign-up, or when the auth server cannot say just now.
 */
export async function isPendingSignUpConfirmed(request: Request, email: string) {
  const value: unknown = await pendingCookie().parse(request.headers.get('Cookie'))
  const pending = value as Partial<PendingSignUp> | null
  if (typeof pending?.since !== 'number' || pending.email !== emailKey(email)) return false
  try {
    return await serviceRpc<boolean>('sign_up_confirmed_since', {
      p_email: email,
      p_since: new Date(pending.since).toISOString(),
    })
  } catch (error) {
    // The page keeps waiting; the next check asks again.
    logger.warn('sign-up confirmation check failed', { error })
    return false
  }
}
