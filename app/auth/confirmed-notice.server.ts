import { authCookie } from './cookies.server'

// The interface contract fixes where /auth/callback sends a sign-up (`/dashboard`, no query),
// so "your email address is confirmed" travels in a short-lived cookie the dashboard reads once.
const confirmedCookie = () => authCookie('email_confirmed', '/', 5 * 60)

export function rememberEmailConfirmed() {
  return confirmedCookie().serialize('1')
}

/** The Set-Cookie that forgets the notice, or null when there is none to show. */
export async function takeEmailConfirmed(request: Request): Promise<string | null> {
  const value: unknown = await confirmedCookie().parse(request.headers.get('Cookie'))
  if (value !== '1') return null
  return confirmedCookie().serialize('', { maxAge: 0 })
}
