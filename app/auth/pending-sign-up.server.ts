import { randomBytes, randomUUID } from 'node:crypto'

import type { SupabaseClient } from '@supabase/supabase-js'

import { rpc } from '~/lib/database/rpc.server'
import { logger } from '~/lib/server/logger.server'

import { authCookie } from './cookies.server'
import { AFTER_SIGN_UP_KEY } from './plan-intent.server'
import { emailKey } from './rate-limits.server'
import { markRecovery } from './recovery.server'

/** A new account's nonce, also in this browser (docs/decisions/0023-journey-state-beside-the-browser.md). */
export const PENDING_SIGN_UP_KEY = 'pending_sign_up'

// Path `/`: the callback and the confirmation pages read it too.
const pendingCookie = () => authCookie('pending_sign_up', '/', 24 * 60 * 60, 'pending-sign-up')

/** A new sign-up's nonce, and the Set-Cookie that remembers it in this browser. */
export function newPendingSignUp(email: string) {
  const nonce = randomUUID()
  return { nonce, cookie: pendingCookie().serialize({ nonce, email: emailKey(email) }) }
}

/** The Set-Cookie that forgets it (once the sign-up is confirmed). */
export function forgetPendingSignUp() {
  return pendingCookie().serialize('', { maxAge: 0 })
}

async function pendingOf(request: Request): Promise<{ nonce: string; email?: unknown } | null> {
  const pending: { nonce?: unknown } | null = await pendingCookie().parse(
    request.headers.get('Cookie'),
  )
  return typeof pending?.nonce === 'string' ? { ...pending, nonce: pending.nonce } : null
}

/** True once this browser's sign-up for `email` is confirmed; false otherwise or when unsure. */
export async function isPendingSignUpConfirmed(request: Request, email: string) {
  const pending = await pendingOf(request)
  if (!pending || pending.email !== emailKey(email)) return false
  try {
    return await rpc('sign_up_confirmed', { p_email: email, p_nonce: pending.nonce })
  } catch (error) {
    // The page keeps waiting; the next check asks again.
    logger.warn({ err: error }, 'sign-up confirmation check failed')
    return false
  }
}

/**
 * Asked before a code (`email`) or an emailed link (`tokenHash`) is verified: true when it
 * would confirm an account whose password this browser's own sign-up did not set
 * (docs/security.md, "Accounts set up before their owner").
 */
export async function isUnprovenSignUp(
  request: Request,
  proof: { email?: string; tokenHash?: string },
) {
  const { email = null, tokenHash = null } = proof
  const nonce = (await pendingOf(request))?.nonce ?? null
  return rpc('sign_up_unproven', { p_email: email, p_token_hash: tokenHash, p_nonce: nonce })
}

/**
 * Right after such a proof, with the session it opened: a password nobody knows replaces the
 * earlier one (the auth server then ends every other session), the plan kept in the account
 * goes, the session is renewed without it, and this browser may choose its own password
 * (recovery.server.ts). False, logged, when the auth server refused.
 */
export async function endUnprovenSignUp(supabase: SupabaseClient, headers: Headers) {
  // Meets any of the project's password character rules.
  const password = `${randomBytes(24).toString('base64url')}aA1!`
  const { data, error } = await supabase.auth.updateUser({
    password,
    data: { [AFTER_SIGN_UP_KEY]: null },
  })
  const failure = error ?? (await supabase.auth.refreshSession()).error
  if (failure || !data.user) {
    logger.error({ code: failure?.code }, 'earlier password of a confirmed sign-up not ended')
    return false
  }
  headers.append('Set-Cookie', await markRecovery(data.user.id))
  return true
}
