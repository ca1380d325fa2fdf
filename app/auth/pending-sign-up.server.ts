import { randomUUID } from 'node:crypto'

import { rpc } from '~/lib/database/rpc.server'
import { logger } from '~/lib/server/logger.server'

import { authCookie } from './cookies.server'
import { emailKey } from './rate-limits.server'

/** A new account's nonce, also in this browser (docs/decisions/0023-journey-state-beside-the-browser.md). */
export const PENDING_SIGN_UP_KEY = 'pending_sign_up'

const PENDING_SECONDS = 24 * 60 * 60

const pendingCookie = () => authCookie('pending_sign_up', PENDING_SECONDS, 'pending-sign-up')

/** A new sign-up's nonce, and the Set-Cookie that remembers it in this browser. */
export function newPendingSignUp(email: string) {
  const nonce = randomUUID()
  return { nonce, cookie: pendingCookie().serialize({ nonce, email: emailKey(email) }) }
}

/** The Set-Cookie that forgets it (once the sign-up is confirmed). */
export function forgetPendingSignUp() {
  return pendingCookie().serialize('', { maxAge: 0 })
}

/** True once this browser's sign-up for `email` is confirmed; false otherwise or when unsure. */
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
