import { readOnceCookie } from './cookies.server'

// The interface contract fixes where /auth/callback sends a sign-up (`/dashboard`, no query),
// so "your email address is confirmed" travels in a cookie the dashboard reads once.
const confirmed = readOnceCookie('email_confirmed')

export const rememberEmailConfirmed = () => confirmed.remember('1')

/** The Set-Cookie that forgets the notice, or null when there is none to show. */
export async function takeEmailConfirmed(request: Request): Promise<string | null> {
  const { value, clear } = await confirmed.take(request)
  return value === '1' ? clear : null
}
