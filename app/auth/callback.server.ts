import type { EmailOtpType } from '@supabase/supabase-js'

import { getEnv } from '~/env.server'
import { logger } from '~/lib/server/logger.server'

import { type AuthFailureReason, failureReasonOf, rememberAuthFailure } from './auth-failure.server'
import { rememberEmailConfirmed } from './confirmed-notice.server'
import { isEmailLinkType } from './email-link-state.server'
import { askedForLink } from './link-origin.server'
import { verifyProof } from './pending-sign-up.server'
import { markRecovery } from './recovery.server'
import { nextFromLink } from './safe-next-path'
import { createSupabaseServerClient, getOptionalUser } from './session.server'

/** An emailed link's parameters: `/auth/callback?token_hash=…&type=…&next=…`. */
export interface EmailLink {
  tokenHash: string
  type: EmailOtpType
  next: string
}

type CallbackOutcome = { location: string; headers: Headers }

const AUTH_FAILED = '/sign-in?error=auth_failed'

const EMAIL_CHANGE_PROGRESS = '/dashboard/settings/account?email=confirmed'

async function failedOutcome(
  headers: Headers,
  reason: AuthFailureReason | null,
): Promise<CallbackOutcome> {
  if (reason) headers.append('Set-Cookie', await rememberAuthFailure(reason))
  return { location: AUTH_FAILED, headers }
}

/** Spec rules 1 to 4; a `token_hash` link opens at once only in the asking browser. */
export async function completeAuthCallback(request: Request): Promise<CallbackOutcome> {
  const params = new URL(request.url).searchParams
  const code = params.get('code')
  const tokenHash = params.get('token_hash')
  const type = params.get('type')
  // An emailed link carries the redirect the auth server accepted (an absolute URL, see
  // nextFromLink); an OAuth return carries the relative `next` of the callback URL we sent.
  const next = nextFromLink(params.get('next'), getEnv().SITE_URL, '/dashboard')
  const { supabase, headers } = createSupabaseServerClient(request)
  // A PKCE recovery link may come back without `type`; its `next` says what it was.
  const flow = type ?? (next === '/reset-password' ? 'recovery' : null)
  const failed = () => failedOutcome(headers, failureReasonOf(flow))
  try {
    if (code) {
      // A PKCE code works only with the verifier cookie of the browser that asked for it.
      const { data, error } = await supabase.auth.exchangeCodeForSession(code)
      if (error) return await failed()
      if (type === 'recovery') headers.append('Set-Cookie', await markRecovery(data.user.id))
      if (type === 'recovery') return { location: '/reset-password', headers }
      if (type === 'signup') {
        headers.append('Set-Cookie', await rememberEmailConfirmed())
        return { location: '/dashboard', headers }
      }
      return { location: next, headers }
    }
    if (tokenHash && type) {
      if (!isEmailLinkType(type)) return await failed()
      if (!(await askedForLink(request))) {
        const confirm = new URLSearchParams({ token_hash: tokenHash, type, next })
        return { location: `/auth/confirm?${confirm}`, headers }
      }
      const link = { tokenHash, type, next }
      return await verifyEmailLink(request, link, { confirmed: false }, headers)
    }
  } catch (error) {
    logger.error({ err: error }, 'auth callback failed')
  }
  return failed()
}

/**
 * Unless confirmed on /auth/confirm, the account must be one this browser asked a link for: a
 * link to another account (forwarded) ends the session it opened and signs nobody in.
 */
export async function verifyEmailLink(
  request: Request,
  link: EmailLink,
  options: { confirmed: boolean },
  headers = new Headers(),
): Promise<CallbackOutcome> {
  // The link's session is written to cookies of its own first: a link for another account
  // leaves this browser exactly as it was (signed out, or still in its own account).
  const { supabase, headers: opened } = createSupabaseServerClient(request)
  const proof = { type: link.type, token_hash: link.tokenHash }
  const { data, error, unproven } = await verifyProof(request, supabase, proof, headers)
  if (error) return failedOutcome(headers, failureReasonOf(link.type))
  if (link.type === 'email_change' && !data.session) {
    // A secure email change's first link has no session: on to settings, signing in if needed.
    const { user } = await getOptionalUser(request)
    if (user) return { location: EMAIL_CHANGE_PROGRESS, headers }
    const params = { notice: 'email-change-half-confirmed', redirectTo: EMAIL_CHANGE_PROGRESS }
    return { location: `/sign-in?${new URLSearchParams(params)}`, headers }
  }
  if (
    !options.confirmed &&
    !(await askedForLink(request, [data.user?.email, data.user?.new_email]))
  ) {
    await supabase.auth.signOut({ scope: 'local' })
    return failedOutcome(headers, 'another_account')
  }
  for (const cookie of opened.getSetCookie()) headers.append('Set-Cookie', cookie)
  opened.forEach((value, key) => {
    if (key.toLowerCase() !== 'set-cookie') headers.set(key, value)
  })
  if (link.type === 'recovery') {
    if (data.user) headers.append('Set-Cookie', await markRecovery(data.user.id))
    return { location: '/reset-password', headers }
  }
  if (link.type === 'signup' || link.type === 'email') {
    headers.append('Set-Cookie', await rememberEmailConfirmed(unproven))
    return { location: '/dashboard', headers }
  }
  return { location: link.next, headers }
}
