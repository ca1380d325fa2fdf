import { type AuthError, createClient, type SupabaseClient } from '@supabase/supabase-js'

import { getEnv } from '~/env.server'
import { authCallsOnBehalfOf } from '~/lib/database/supabase-keys.server'
import { logger } from '~/lib/server/logger.server'
import { clientAddress } from '~/lib/server/rate-limit.server'
import { requestIdHeader } from '~/lib/server/request-context.server'

import { authErrorMessage } from './auth-errors'
import { markLinkRequested } from './link-origin.server'
import { afterAnswer } from './mail-requests.server'
import {
  newPendingSignUp,
  noteMailRefused,
  PENDING_SIGN_UP_KEY,
  verifyProof,
} from './pending-sign-up.server'
import { safeNextPath } from './safe-next-path'
import { createSupabaseServerClient } from './session.server'

/** The outcome of an auth action: the cookies to set, and an error message if it failed. */
export interface AuthResult {
  headers: Headers
  error?: string
  errorCode?: string
}

/**
 * The redirect every auth call sends: the callback with `next` in its query. OAuth and the
 * auth server's own verify link return here; the mail templates (supabase/templates/) link
 * to SITE_URL's callback and carry this URL as their `next` (nextFromLink reads it back), so
 * a mail works even when the auth server fell back to the bare Site URL.
 */
export function callbackUrl(next?: string) {
  const url = new URL('/auth/callback', getEnv().SITE_URL)
  url.searchParams.set('next', safeNextPath(next ?? '/dashboard'))
  return url.toString()
}

/**
 * A client with no browser session (nothing of it reaches cookies), its auth calls made on
 * behalf of the visitor at `address` when that is known.
 */
export function sessionlessClient(address: string | null) {
  const env = getEnv()
  const onBehalf = authCallsOnBehalfOf(address, env)
  return createClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: requestIdHeader(), ...(onBehalf ? { fetch: onBehalf } : {}) },
  })
}

export async function signInWithPassword(
  request: Request,
  email: string,
  password: string,
): Promise<AuthResult> {
  const { supabase, headers } = createSupabaseServerClient(request)
  const { error } = await supabase.auth.signInWithPassword({ email, password })
  if (error) return { headers, error: authErrorMessage(error), errorCode: error.code }
  return { headers }
}

/**
 * Signs up: the same answer, after the same work, whether or not the address has an account
 * (no enumeration, not even by response time): the auth server is asked after the answer
 * (mail-requests.server.ts). The mail says what happened: a new account gets its
 * confirmation, an existing one a sign-in link whose mail explains it. The password was
 * checked against the project's rules by the form (SignUpSchema, supabase/config.toml).
 */
export async function signUp(
  request: Request,
  email: string,
  password: string,
  next?: string,
): Promise<{ headers: Headers }> {
  // The visitor's address is read now: the job runs after this request has been answered.
  const address = clientAddress(request)
  // This browser's "Check your email" page notices the confirmation, wherever it happens.
  const pending = newPendingSignUp(email)
  afterAnswer('sign-up', () => registerOrRemind(address, email, password, next, pending.nonce))
  const headers = new Headers()
  headers.append('Set-Cookie', await markLinkRequested(request, email))
  headers.append('Set-Cookie', await pending.cookie)
  return { headers }
}

/** A sign-up at the auth server; an address that has an account gets a sign-in link. */
async function registerOrRemind(
  address: string | null,
  email: string,
  password: string,
  next: string | undefined,
  pendingNonce: string,
) {
  // No session comes of it (the address is confirmed first), so no browser's cookies.
  const { data, error } = await sessionlessClient(address).auth.signUp({
    email,
    password,
    // The nonce marks the account this sign-up made (pending-sign-up.server.ts); an existing
    // account's metadata is not touched by a sign-up.
    options: { emailRedirectTo: callbackUrl(next), data: { [PENDING_SIGN_UP_KEY]: pendingNonce } },
  })
  const exists =
    error?.code === 'user_already_exists' ||
    error?.code === 'email_exists' ||
    // With email confirmation on, Supabase answers for an existing account with a user
    // that has no identities, and sends nothing.
    (!error && data.user?.identities?.length === 0)
  const refused = exists ? await mailSignInLink(email, next, address) : error
  // Sent to nobody: this browser's check-email page says so (only it holds the nonce).
  if (refused?.code === 'over_email_send_rate_limit') await noteMailRefused(pendingNonce)
  else if (error && !exists) logger.warn({ code: error.code }, 'sign-up not completed')
}

/**
 * Mails a one-time sign-in link to an existing account from a client without a session
 * (the magic-link template says why it came: supabase/templates/magic_link.html): a magic
 * link, or someone signing up with, or moving another account to, an address that has an
 * account. Called after the answer; a failure (the provider's own send limit) is logged,
 * never shown. With the visitor's `address`, the call is made on their behalf.
 */
export async function mailSignInLink(
  email: string,
  next: string | undefined,
  address: string | null,
) {
  const { error } = await sessionlessClient(address).auth.signInWithOtp({
    email,
    options: { emailRedirectTo: callbackUrl(next), shouldCreateUser: false },
  })
  // 422 `otp_disabled`: the address has no account (a magic link never makes one).
  if (error && error.status !== 422) logger.warn({ code: error.code }, 'sign-in link not sent')
  return error
}

const WRONG_CODE =
  'That code is not right, or it has expired. Check the newest email, or send a new one.'

/**
 * Signs in with the 6-digit code of the mail a check-email page promised: a sign-up
 * confirmation, or the sign-in link that goes instead to an address that already has an
 * account (signing up again, or a magic link). Type `email` makes the auth server accept the
 * code of either mail (GoTrue verify.go checks the confirmation and the sign-in token), so
 * the page takes whichever code arrived and says nothing about which it was. The session's
 * cookies land on `headers`; `choosePassword` when the code ended a password set elsewhere.
 */
export async function confirmWithCode(
  request: Request,
  email: string,
  code: string,
): Promise<AuthResult & { choosePassword?: boolean }> {
  const { supabase, headers } = createSupabaseServerClient(request)
  const proof = { email, token: code, type: 'email' as const }
  const { data, error, unproven } = await verifyProof(request, supabase, proof, headers)
  if (error || !data.session) {
    // The auth server's own limit says nothing of the code: asking again at once would not help.
    const message = error?.status === 429 ? authErrorMessage(error) : WRONG_CODE
    return { headers, error: message, errorCode: error?.code }
  }
  return { headers, choosePassword: unproven }
}

/**
 * A link mailed after the answer (mail-requests.server.ts): neither the answer nor its time
 * says whether the address has an account, or that the auth server's once-a-minute mail timer
 * (which runs only for one) refused. The Set-Cookie that marks this browser as the one that
 * asked (link-origin.server.ts).
 */
function mailAfterAnswer(
  request: Request,
  email: string,
  what: string,
  send: (auth: SupabaseClient['auth']) => Promise<{ error: AuthError | null }>,
) {
  const address = clientAddress(request)
  afterAnswer(what, async () => {
    const { error } = await send(sessionlessClient(address).auth)
    if (error) logger.warn({ code: error.code }, `${what} not sent`)
  })
  return markLinkRequested(request, email)
}

export const sendPasswordReset = (request: Request, email: string) =>
  mailAfterAnswer(request, email, 'reset link', (auth) =>
    auth.resetPasswordForEmail(email, { redirectTo: callbackUrl('/reset-password') }),
  )

/** "Send it again": the auth server mails only an address waiting for its confirmation. */
export const resendConfirmation = (request: Request, email: string) =>
  mailAfterAnswer(request, email, 'sign-up confirmation', (auth) =>
    auth.resend({ type: 'signup', email, options: { emailRedirectTo: callbackUrl('/dashboard') } }),
  )

/**
 * Set in user_metadata with every password the app sets: Supabase Auth does not say whether a
 * user has one (a GitHub account's gets no `email` identity), so Account settings reads this
 * hint. Nothing is allowed or refused because of it (see getAccountState).
 */
export const PASSWORD_SET_KEY = 'password_set'

/** Signs out of this browser (scope "local": the account's other sessions stay). */
export async function signOut(request: Request): Promise<AuthResult> {
  const { supabase, headers } = createSupabaseServerClient(request)
  await supabase.auth.signOut({ scope: 'local' })
  return { headers }
}
