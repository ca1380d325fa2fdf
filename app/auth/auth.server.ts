import type { EmailOtpType, SupabaseClient } from '@supabase/supabase-js'
import { getEnv } from '~/env.server'
import { markRecovery } from './recovery.server'
import { authErrorMessage } from './auth-errors'
import { safeNextPath } from './safe-next-path'
import { createSupabaseServerClient } from './session.server'

/** The outcome of an auth action: the cookies to set, and an error message if it failed. */
export interface AuthResult {
  headers: Headers
  error?: string
  errorCode?: string
}

/**
 * The address auth mails link to: the callback with `next` always in its query, so the
 * mail templates (supabase/templates/) can append `&token_hash=…&type=…`.
 */
function callbackUrl(next?: string) {
  const url = new URL('/auth/callback', getEnv().SITE_URL)
  url.searchParams.set('next', safeNextPath(next ?? '/dashboard'))
  return url.toString()
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

export async function signUp(
  request: Request,
  email: string,
  password: string,
  next?: string,
): Promise<AuthResult> {
  const { supabase, headers } = createSupabaseServerClient(request)
  const { data, error } = await supabase.auth.signUp({
    email,
    password,
    options: { emailRedirectTo: callbackUrl(next) },
  })
  if (error) return { headers, error: authErrorMessage(error), errorCode: error.code }
  // With email confirmation on, Supabase hides an existing account behind a user with no
  // identities; tell the person the same way as a real duplicate.
  if (data.user && data.user.identities && data.user.identities.length === 0) {
    return {
      headers,
      error: authErrorMessage({ code: 'user_already_exists' }),
      errorCode: 'user_already_exists',
    }
  }
  return { headers }
}

/** Emails a one-time sign-in link (existing accounts only). */
export async function sendMagicLink(
  request: Request,
  email: string,
  next?: string,
): Promise<AuthResult> {
  const { supabase, headers } = createSupabaseServerClient(request)
  const { error } = await supabase.auth.signInWithOtp({
    email,
    options: { emailRedirectTo: callbackUrl(next), shouldCreateUser: false },
  })
  // Do not reveal whether an account exists: an unknown email looks like success.
  if (
    error &&
    error.code !== 'otp_disabled' &&
    error.code !== 'user_not_found' &&
    error.status !== 422
  ) {
    return { headers, error: authErrorMessage(error), errorCode: error.code }
  }
  return { headers }
}

/** Starts OAuth sign-in; returns the provider URL to send the browser to. */
export async function startOAuth(
  request: Request,
  next?: string,
): Promise<AuthResult & { url?: string }> {
  const { supabase, headers } = createSupabaseServerClient(request)
  const { data, error } = await supabase.auth.signInWithOAuth({
    provider: 'github',
    options: { redirectTo: callbackUrl(next) },
  })
  if (error || !data.url) return { headers, error: authErrorMessage(error) }
  return { headers, url: data.url }
}

export async function sendPasswordReset(request: Request, email: string): Promise<AuthResult> {
  const { supabase, headers } = createSupabaseServerClient(request)
  // next=/reset-password: a PKCE link (`?code=`, no `type`) must land there too, not on /dashboard.
  const { error } = await supabase.auth.resetPasswordForEmail(email, {
    redirectTo: callbackUrl('/reset-password'),
  })
  if (error && error.status !== 404)
    return { headers, error: authErrorMessage(error), errorCode: error.code }
  return { headers }
}

/**
 * Sets a new password for the user of `session` (from `requireUser`): its client, so the
 * session is not refreshed a second time with a refresh token that was just rotated.
 */
export async function updatePassword(
  session: { supabase: SupabaseClient; headers: Headers },
  password: string,
): Promise<AuthResult> {
  const { supabase, headers } = session
  const { error } = await supabase.auth.updateUser({ password })
  if (error) return { headers, error: authErrorMessage(error), errorCode: error.code }
  return { headers }
}

/** Signs out of this browser (scope "local") or of every session (scope "global"). */
export async function signOut(
  request: Request,
  scope: 'local' | 'global' = 'local',
): Promise<AuthResult> {
  const { supabase, headers } = createSupabaseServerClient(request)
  await supabase.auth.signOut({ scope })
  return { headers }
}

const EMAIL_OTP_TYPES = new Set<EmailOtpType>([
  'signup',
  'invite',
  'magiclink',
  'recovery',
  'email_change',
  'email',
])

/**
 * GET /auth/callback, the spec's rules 1 to 4: exchange a code or verify an email token,
 * then pick where to go. Any failure goes to /sign-in?error=auth_failed.
 */
export async function completeAuthCallback(
  request: Request,
): Promise<{ location: string; headers: Headers }> {
  const params = new URL(request.url).searchParams
  const code = params.get('code')
  const tokenHash = params.get('token_hash')
  const type = params.get('type')
  const next = safeNextPath(params.get('next'), '/dashboard')
  const { supabase, headers } = createSupabaseServerClient(request)
  const failed = { location: '/sign-in?error=auth_failed', headers }
  try {
    if (code) {
      const { data, error } = await supabase.auth.exchangeCodeForSession(code)
      if (error) return failed
      if (type === 'recovery') headers.append('Set-Cookie', await markRecovery(data.user.id))
      if (type === 'recovery') return { location: '/reset-password', headers }
      if (type === 'signup') return { location: '/dashboard', headers }
      return { location: next, headers }
    }
    if (tokenHash && type) {
      if (!EMAIL_OTP_TYPES.has(type as EmailOtpType)) return failed
      const { data, error } = await supabase.auth.verifyOtp({
        type: type as EmailOtpType,
        token_hash: tokenHash,
      })
      if (error) return failed
      if (type === 'recovery') {
        if (data.user) headers.append('Set-Cookie', await markRecovery(data.user.id))
        return { location: '/reset-password', headers }
      }
      if (type === 'signup' || type === 'email') return { location: '/dashboard', headers }
      return { location: next, headers }
    }
  } catch (error) {
    console.error('auth callback failed', error)
  }
  return failed
}
