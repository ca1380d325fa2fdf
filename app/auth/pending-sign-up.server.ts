import { randomUUID } from 'node:crypto'

import { rpc } from '~/lib/database/rpc.server'
import { logger } from '~/lib/server/logger.server'

import { authCookie } from './cookies.server'
import { emailKey } from './rate-limits.server'

/**
 * The sign-up this browser is waiting on, so its "Check your email" page can notice when
 * the address is confirmed, wherever that happened (the link opened on a phone), and move
 * on. The sign-up reaches the auth server just after the page is answered (auth.server.ts),
 * so the account's id is not known then: the sign-up carries a random nonce in the new
 * account's metadata (`PENDING_SIGN_UP_KEY`), and a signed HttpOnly cookie keeps the same
 * nonce and the address (hashed). Only the browser that signed up can ask, and only about
 * the account its own sign-up made (`sign_up_confirmed`). An address that already had an
 * account gets no nonce (a sign-up leaves an existing account's metadata alone), so its
 * page looks and behaves the same and never moves on.
 */
export const PENDING_SIGN_UP_KEY = 'pending_sign_up'

const PENDING_SECONDS = 24 * 60 * 60

const pendingCookie = () =>
  authCookie('pending_sign_up', '/sign-up', PENDING_SECONDS, 'pending-sign-up')

/** A new sign-up's nonce, and the Set-Cookie that remembers it in this browser. */
export function newPendingSignUp(email: string) {
  const nonce = randomUUID()
  return { nonce, cookie: pendingCookie().serialize({ nonce, email: emailKey(email) }) }
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
  const cookie = request.headers.get('Cookie')
  const pending: { nonce?: unknown; email?: unknown } | null = await pendingCookie().parse(cookie)
  if (typeof pending?.nonce !== 'string' || pending.email !== emailKey(email)) return false
  try {
    return await rpc('sign_up_confirmed', { p_email: email, p_nonce: pending.nonce })
  } catch (error) {
    // The page keeps waiting; the next check asks again.
    logger.warn({ err: error }, 'sign-up confirmation check failed')
    return false
  }
}
