import { AUTH_FAILURE_MESSAGES } from './auth-errors'
import { readOnceCookie } from './cookies.server'

/** The contract fixes the callback's failure URL, so the reason travels in a cookie read once. */
export type AuthFailureReason = keyof typeof AUTH_FAILURE_MESSAGES

const failure = readOnceCookie('auth_failure')

export function failureReasonOf(type: string | null): AuthFailureReason | null {
  if (type === 'recovery') return 'recovery'
  if (type === 'signup' || type === 'invite') return 'signup'
  if (type === 'magiclink' || type === 'email') return 'magiclink'
  if (type === 'email_change') return 'email_change'
  return null
}

export const rememberAuthFailure = (reason: AuthFailureReason) => failure.remember(reason)

export async function takeAuthFailure(request: Request) {
  const { value, clear } = await failure.take(request)
  if (typeof value !== 'string' || !Object.hasOwn(AUTH_FAILURE_MESSAGES, value)) return null
  return { reason: value as AuthFailureReason, clear }
}
