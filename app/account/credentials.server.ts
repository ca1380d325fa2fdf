import type { SupabaseClient } from '@supabase/supabase-js'

import {
  callbackUrl,
  mailSignInLink,
  PASSWORD_SET_KEY,
  sessionlessClient,
} from '~/auth/auth.server'
import { authErrorMessage } from '~/auth/auth-errors'
import { authCookie } from '~/auth/cookies.server'
import { afterAnswer } from '~/auth/mail-requests.server'
import { logger } from '~/lib/server/logger.server'

export type CredentialOutcome =
  | { ok: true }
  | {
      ok: false
      field?: 'password' | 'currentPassword' | 'code'
      message: string
      /** The auth server asks for the 6-digit code it just mailed ("secure password change"). */
      needsCode?: boolean
    }

/**
 * A current password is checked first by a throwaway sign-in, so a wrong one is told before a
 * reauthentication code is mailed ("secure password change": sessions older than 24 h). It also
 * goes to the auth server, which with "require current password" refuses a new one without it
 * (docs/going-live.md): a stolen session alone cannot change it.
 */
export async function savePassword(
  supabase: SupabaseClient,
  input: {
    email: string
    password: string
    code?: string
    currentPassword?: string
    /** The visitor's address (`clientAddress`), forwarded to the auth server. */
    address: string | null
  },
): Promise<CredentialOutcome> {
  const { email, password, code, currentPassword } = input
  if (currentPassword !== undefined) {
    const refusal = await ownerRefusal(email, { currentPassword }, input.address)
    if (refusal) return { ok: false, ...refusal }
  }
  const { error } = await supabase.auth.updateUser({
    password,
    ...(currentPassword ? { current_password: currentPassword } : {}),
    ...(code ? { nonce: code } : {}),
    data: { [PASSWORD_SET_KEY]: true },
  })
  if (!error) return { ok: true }
  if (error.code === 'reauthentication_needed') {
    // Mailed at most once a minute; a second ask within it keeps the code already sent.
    await supabase.auth.reauthenticate()
    return {
      ok: false,
      needsCode: true,
      message: `To keep your account safe, we emailed a 6-digit code to ${email}. Enter it with your new password.`,
    }
  }
  if (error.code === 'current_password_invalid' || error.code === 'current_password_required')
    return { ok: false, field: 'currentPassword', message: 'That is not your current password' }
  if (error.code === 'reauthentication_not_valid') {
    return {
      ok: false,
      needsCode: true,
      field: 'code',
      message:
        'That code is wrong or has expired. Check the latest email, or leave it empty to get a new one.',
    }
  }
  const onField = error.code === 'weak_password' || error.code === 'same_password'
  return { ok: false, field: onField ? 'password' : undefined, message: authErrorMessage(error) }
}

/** Null when the owner's proof holds, else what to say. */
export async function ownerRefusal(
  email: string,
  proof: { currentPassword?: string; code?: string },
  address: string | null,
): Promise<{ field?: 'currentPassword' | 'code'; message: string } | null> {
  const probe = sessionlessClient(address)
  const { error } = proof.currentPassword
    ? await probe.auth.signInWithPassword({ email, password: proof.currentPassword })
    : await probe.auth.verifyOtp({ email, token: proof.code ?? '', type: 'email' })
  // The auth server's own limit says nothing about the secret: wait, not "wrong".
  if (error?.status === 429) return { message: authErrorMessage(error) }
  if (error && proof.currentPassword)
    return { field: 'currentPassword', message: 'That is not your current password' }
  if (error) return { field: 'code', message: 'That code is wrong or has expired' }
  await probe.auth.signOut({ scope: 'local' })
  return null
}

/** Starts an email change after the answer; a taken address's owner is mailed a sign-in link. */
export function requestEmailChange(
  supabase: SupabaseClient,
  email: string,
  address: string | null,
) {
  afterAnswer('email-change', async () => {
    const emailRedirectTo = callbackUrl('/dashboard/settings/account?email=confirmed')
    const { error } = await supabase.auth.updateUser({ email }, { emailRedirectTo })
    if (error?.code === 'email_exists' || error?.code === 'user_already_exists') {
      await mailSignInLink(email, undefined, address)
    } else if (error) {
      logger.warn({ code: error.code }, 'email change not started at the auth server')
    }
  })
}

/** Pending an hour or until confirmed: the page looks the same whether or not it was taken. */
const requestedEmailCookie = () => authCookie('email_change', 60 * 60, 'email-change')

export function rememberRequestedEmail(email: string) {
  return requestedEmailCookie().serialize({ email })
}

export async function requestedEmail(request: Request): Promise<string | null> {
  const value: unknown = await requestedEmailCookie().parse(request.headers.get('Cookie'))
  const email = (value as { email?: unknown } | null)?.email
  return typeof email === 'string' ? email : null
}
