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

export interface AuthResult {
  headers: Headers
  error?: string
  errorCode?: string
}

/** The callback with `next`: every auth call's redirect; the mails carry it as their `next`. */
export function callbackUrl(next?: string) {
  const url = new URL('/auth/callback', getEnv().SITE_URL)
  url.searchParams.set('next', safeNextPath(next ?? '/dashboard'))
  return url.toString()
}

/** A client without a browser session, calling on behalf of the visitor at `address`. */
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
 * Signs up: the auth server is asked after the answer, the same for any address (docs/security.md);
 * a new account gets its confirmation, an existing one a sign-in link whose mail explains it.
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
    // The nonce marks the account this sign-up made; an existing account's metadata is untouched.
    options: { emailRedirectTo: callbackUrl(next), data: { [PENDING_SIGN_UP_KEY]: pendingNonce } },
  })
  const exists =
    error?.code === 'user_already_exists' ||
    error?.code === 'email_exists' ||
    // With email confirmation on, an existing account's answer has no identities; nothing is sent.
    (!error && data.user?.identities?.length === 0)
  const refused = exists ? await mailSignInLink(email, next, address) : error
  // Refused at the project's hourly budget (not the minute per address, which names seconds
  // and would tell an account): this browser's check-email page says so.
  if (refused?.code === 'over_email_send_rate_limit' && !/seconds/.test(refused.message))
    await noteMailRefused(pendingNonce)
  else if (error && !exists)
    logger.warn({ code: error.code }, 'sign-up not completed at the auth server')
}

/** Mails an existing account a sign-in link after the answer; a failure is logged, never shown. */
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
 * Type `email` accepts a confirmation's or a sign-in link's code, so the page never says which;
 * `choosePassword` when the code ended a password set elsewhere.
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

/** A link mailed after the answer; returns the Set-Cookie that marks this browser as asking. */
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

/** Set in user_metadata with every password the app sets: a hint for Account settings only. */
export const PASSWORD_SET_KEY = 'password_set'

/** Signs out of this browser (scope "local": the account's other sessions stay). */
export async function signOut(request: Request): Promise<AuthResult> {
  const { supabase, headers } = createSupabaseServerClient(request)
  await supabase.auth.signOut({ scope: 'local' })
  return { headers }
}
