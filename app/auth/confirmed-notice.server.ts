import { readOnceCookie } from './cookies.server'

// The contract sends a confirmed sign-up to `/dashboard`, no query: "confirmed" ('1') and "now
// choose your password" ('choose-password') travel in a cookie the dashboard reads once.
const confirmed = readOnceCookie('email_confirmed')

export const rememberEmailConfirmed = (choosePassword = false) =>
  confirmed.remember(choosePassword ? 'choose-password' : '1')

export const takeEmailConfirmed = confirmed.take
