/**
 * How the app reads the auth server's answers while re-checking a session: only a definite
 * "this session is gone" ends it; anything else (a 429, a 5xx, no answer in time) says
 * nothing about the session, and the request is answered "try again" instead.
 */

/**
 * Error codes with which Supabase Auth says a session or its user no longer exists
 * (supabase/auth `internal/api/apierrors/errorcode.go`; the refresh grant's answers in
 * `internal/tokens/service.go`; auth-js's own sign-out treats `session_not_found` and
 * `user_not_found` as already signed out).
 */
const SESSION_GONE = new Set([
  'session_not_found',
  'session_expired',
  'user_not_found',
  'user_banned',
  'refresh_token_not_found',
  'refresh_token_already_used',
])

/**
 * True when the auth server said that this session (or its user) is gone. auth-js turns a
 * `session_not_found` answer into an `AuthSessionMissingError` without a code, which is
 * also what it returns when the client holds no session at all: gone either way.
 */
export function isDefiniteSessionEnd(
  error: { code?: string; name?: string } | null | undefined,
): boolean {
  if (error?.name === 'AuthSessionMissingError') return true
  return typeof error?.code === 'string' && SESSION_GONE.has(error.code)
}

/**
 * True when the auth server could not be asked or would not answer: no connection, no
 * answer in time (auth-js's `AuthRetryableFetchError`), a 429, or a 5xx. Such an error says
 * nothing about the token in hand, unlike a refusal of the token itself (`bad_jwt`,
 * `invalid_jwt`), which means the request is not signed in.
 */
export function isAuthServerUnavailable(
  error: { name?: string; status?: number } | null | undefined,
): boolean {
  if (!error) return false
  if (error.name === 'AuthRetryableFetchError') return true
  return typeof error.status === 'number' && (error.status === 429 || error.status >= 500)
}
