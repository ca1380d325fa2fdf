import { readOnceCookie } from './cookies.server'

// The interface contract fixes where /auth/callback sends a sign-up (`/dashboard`, no query),
// so "your email address is confirmed" ('1') travels in a cookie the dashboard reads once; so
// does "now choose your password" ('choose-password', pending-sign-up.server.ts).
const confirmed = readOnceCookie('email_confirmed')

export const rememberEmailConfirmed = (choosePassword = false) =>
  confirmed.remember(choosePassword ? 'choose-password' : '1')

export const takeEmailConfirmed = confirmed.take
