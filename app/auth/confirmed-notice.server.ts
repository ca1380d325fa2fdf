import { readOnceCookie } from './cookies.server'

// The interface contract fixes where /auth/callback sends a sign-up (`/dashboard`, no query),
// so "your email address is confirmed" travels in a cookie the dashboard reads once; so does
// "now choose your password" (pending-sign-up.server.ts, endUnprovenSignUp).
const confirmed = readOnceCookie('email_confirmed')

export const rememberEmailConfirmed = (choosePassword = false) =>
  confirmed.remember(choosePassword ? 'choose-password' : '1')

/** The Set-Cookie that forgets the notice and what it says, or null when there is none. */
export async function takeEmailConfirmed(request: Request) {
  const { value, clear } = await confirmed.take(request)
  if (value !== '1' && value !== 'choose-password') return null
  return { clear, choosePassword: value === 'choose-password' }
}
