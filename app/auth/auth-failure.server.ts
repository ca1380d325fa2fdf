import { AUTH_FAILURE_MESSAGES } from './auth-errors'
import { authCookie } from './cookies.server'

/**
 * Why an emailed link or a sign-in flow failed. The interface contract fixes the failure
 * location of /auth/callback (`/sign-in?error=auth_failed`, nothing else in the address),
 * so the reason travels beside it in a short-lived HttpOnly cookie that the sign-in page
 * reads once: a used reset link offers "send a new link", a used confirmation link "send
 * the confirmation again", and so on. Without the cookie the page shows the general message.
 */
export type AuthFailureReason = keyof typeof AUTH_FAILURE_MESSAGES

// Path `/`: with JavaScript the sign-in page's data is fetched from `/sign-in.data`, which a
// cookie on `/sign-in` would not reach.
const failureCookie = () => authCookie('auth_failure', '/', 5 * 60)

/** The reason a failed link of this `type` gives, or null for a flow without its own advice. */
export function failureReasonOf(type: string | null): AuthFailureReason | null {
  if (type === 'recovery') return 'recovery'
  if (type === 'signup' || type === 'invite') return 'signup'
  if (type === 'magiclink' || type === 'email') return 'magiclink'
  if (type === 'email_change') return 'email_change'
  return null
}

/** The Set-Cookie that tells the sign-in page why the last link failed. */
export function rememberAuthFailure(reason: AuthFailureReason) {
  return failureCookie().serialize(reason)
}

/** The reason of the last failure (and the Set-Cookie that forgets it), or null. */
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
