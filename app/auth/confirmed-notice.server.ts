import { authCookie } from './cookies.server'

/**
 * "Your email address is confirmed" after the confirmation link. The interface contract
 * fixes where /auth/callback sends a sign-up (`/dashboard`, no query), so the callback sets
 * this short-lived, HttpOnly cookie and the dashboard shows the notice once and forgets it.
 * The code typed on the check-email page uses `?notice=email-confirmed` instead.
 */
const confirmedCookie = () => authCookie('email_confirmed', '/', 5 * 60)

/** The Set-Cookie that asks the dashboard to say the email address is confirmed. */
export function rememberEmailConfirmed() {
  return confirmedCookie().serialize('1')
}

/** Whether to show the notice, and the Set-Cookie that forgets it (null when not set). */
export async function takeEmailConfirmed(request: Request): Promise<string | null> {
  const value: unknown = await confirmedCookie().parse(request.headers.get('Cookie'))
  if (value !== '1') return null
  return confirmedCookie().serialize('', { maxAge: 0 })
}
