import { randomBytes, randomUUID } from 'node:crypto'

import type { SupabaseClient } from '@supabase/supabase-js'

import { rpc } from '~/lib/database/rpc.server'
import { logger } from '~/lib/server/logger.server'
import { getRateLimitStore, retryAfterText } from '~/lib/server/rate-limit.server'

import { authCookie } from './cookies.server'
import { emailKey } from './rate-limits.server'
import { markRecovery } from './recovery.server'

/** A new account's nonce, also in this browser. */
export const PENDING_SIGN_UP_KEY = 'pending_sign_up'

const pendingCookie = () => authCookie('pending_sign_up', 24 * 60 * 60, 'pending-sign-up')

export function newPendingSignUp(email: string) {
  const nonce = randomUUID()
  return { nonce, cookie: pendingCookie().serialize({ nonce, email: emailKey(email) }) }
}

export function forgetPendingSignUp() {
  return pendingCookie().serialize('', { maxAge: 0 })
}

const pendingOf = async (request: Request): Promise<{ nonce?: string; email?: string } | null> =>
  pendingCookie().parse(request.headers.get('Cookie'))

// Only this browser holds the nonce: its check-email page learns its sign-up mail was refused.
const refusedKey = (nonce: string) => `auth:mail-refused:${nonce}`
export const noteMailRefused = (nonce: string) =>
  getRateLimitStore().hit(refusedKey(nonce), { limit: 1, windowMs: 60 * 60_000 })

/** The wait before signing up again ("58 minutes") when this browser's sign-up mail was refused. */
export async function mailNotSentIn(request: Request) {
  const nonce = (await pendingOf(request))?.nonce
  // A second hit on a noted key is refused with the time left; otherwise nothing is kept.
  const check =
    nonce && (await getRateLimitStore().hit(refusedKey(nonce), { limit: 1, windowMs: 1 }))
  return check && !check.allowed ? retryAfterText(check.retryAfterSeconds) : null
}

/** True once this browser's sign-up for `email` is confirmed; false otherwise or when unsure. */
export async function isPendingSignUpConfirmed(request: Request, email: string) {
  const pending = await pendingOf(request)
  if (!pending?.nonce || pending.email !== emailKey(email)) return false
  try {
    return await rpc('sign_up_confirmed', { p_email: email, p_nonce: pending.nonce })
  } catch (error) {
    // The page keeps waiting; the next check asks again.
    logger.warn({ err: error }, 'sign-up confirmation check failed')
    return false
  }
}

/**
 * Verifies an emailed code or link; an account whose password this browser did not set gets one
 * nobody knows, and `headers` let this browser choose its own (docs/security.md).
 */
export async function verifyProof(
  request: Request,
  supabase: SupabaseClient,
  proof: Parameters<SupabaseClient['auth']['verifyOtp']>[0],
  headers: Headers,
) {
  const unproven = await rpc('sign_up_unproven', {
    p_email: 'email' in proof ? proof.email : null,
    p_token_hash: 'token_hash' in proof ? proof.token_hash : null,
    p_nonce: (await pendingOf(request))?.nonce ?? null,
  })
  const verified = await supabase.auth.verifyOtp(proof)
  if (!unproven || !verified.data.user) return { ...verified, unproven: false }
  // Meets any of the project's password character rules.
  const password = `${randomBytes(24).toString('base64url')}aA1!`
  const { error } = await supabase.auth.updateUser({ password })
  if (!error) {
    headers.append('Set-Cookie', await markRecovery(verified.data.user.id))
    return { ...verified, unproven }
  }
  logger.error({ code: error.code }, 'earlier password of a confirmed sign-up not ended')
  await supabase.auth.signOut({ scope: 'local' })
  return { data: { user: null, session: null }, error, unproven }
}
