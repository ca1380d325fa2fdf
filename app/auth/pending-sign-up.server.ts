import { randomUUID } from 'node:crypto'
import { createCookie } from '@remix-run/node'
import { getEnv } from '~/env.server'
import { cookieSecret } from '~/lib/cookie-secret.server'
import { logger } from '~/lib/logger.server'
import { getSupabaseAdmin } from '~/lib/supabase-admin.server'
import { emailKey } from './rate-limits.server'

/**
 * The sign-up this browser is waiting on, so its "Check your email" page can notice when
 * the address is confirmed, wherever that happened (the link opened on a phone), and move
 * on. A signed HttpOnly cookie names the account Supabase Auth answered the sign-up with
 * and the address (hashed): only the browser that signed up can ask, and only about its
 * own sign-up. An address that already had an account gets a made-up id from Supabase Auth
 * (or one of ours), which never confirms: that page looks and behaves the same.
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
  id: string
  email: string
}

/** The Set-Cookie that remembers this browser's sign-up (a made-up id when none was given). */
export function rememberPendingSignUp(email: string, userId: string | undefined) {
  const value: PendingSignUp = { id: userId ?? randomUUID(), email: emailKey(email) }
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
  if (typeof pending?.id !== 'string' || pending.email !== emailKey(email)) return false
  const { data, error } = await getSupabaseAdmin().auth.admin.getUserById(pending.id)
  if (error) {
    // A made-up id is simply not found; anything else is logged and the page keeps waiting.
    if (error.status !== 404) logger.warn('sign-up confirmation check failed', { code: error.code })
    return false
  }
  const user = data.user
  return Boolean(user?.email_confirmed_at) && emailKey(user?.email ?? '') === pending.email
}
