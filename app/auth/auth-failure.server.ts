import { AUTH_FAILURE_MESSAGES } from './auth-errors'
import { authCookie } from './cookies.server'

/**
 * The interface contract fixes the callback's failure location (`/sign-in?error=auth_failed`,
 * nothing more), so the reason travels in a short-lived HttpOnly cookie read once.
 */
export type AuthFailureReason = keyof typeof AUTH_FAILURE_MESSAGES

// Path `/`: with JavaScript the sign-in page's data is fetched from `/sign-in.data`, which a
// cookie on `/sign-in` would not reach.
const failureCookie = () => authCookie('auth_failure', '/', 5 * 60)

export function failureReasonOf(type: string | null): AuthFailureReason | null {
  if (type === 'recovery') return 'recovery'
  if (type === 'signup' || type === 'invite') return 'signup'
  if (type === 'magiclink' || type === 'email') return 'magiclink'
  if (type === 'email_change') return 'email_change'
  return null
}

export function rememberAuthFailure(reason: AuthFailureReason) {
  return failureCookie().serialize(reason)
}

/** The reason and the Set-Cookie that forgets it. */
export async function takeAuthFailure(
  request: Request,
): Promise<{ reason: AuthFailureReason; clear: string } | null> {
  const value: unknown = await failureCookie().parse(request.headers.get('Cookie'))
  if (typeof value !== 'string' || !Object.hasOwn(AUTH_FAILURE_MESSAGES, value)) return null
  return {
    reason: value as AuthFailureReason,
    clear: await failureCookie().serialize('', { maxAge: 0 }),
  }
}
