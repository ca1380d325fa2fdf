/**
 * Error codes with which Supabase Auth says a session or its user no longer exists
 * (supabase/auth `internal/api/apierrors/errorcode.go`, `internal/tokens/service.go`): only
 * these end a session; anything else (a 429, a 5xx, no answer) is answered "try again".
 */
const SESSION_GONE = new Set([
  'session_not_found',
  'session_expired',
  'user_not_found',
  'user_banned',
  'refresh_token_not_found',
  'refresh_token_already_used',
])

/** auth-js renders `session_not_found` as an `AuthSessionMissingError` without a code. */
export function isDefiniteSessionEnd(
  error: { code?: string; name?: string } | null | undefined,
): boolean {
  if (error?.name === 'AuthSessionMissingError') return true
  return typeof error?.code === 'string' && SESSION_GONE.has(error.code)
}

/**
 * No connection, no answer in time, a 429 or a 5xx: nothing is known about the token, unlike a
 * refusal of the token itself (`bad_jwt`, `invalid_jwt`), which means it is not signed in.
 */
export function isAuthServerUnavailable(
  error: { name?: string; status?: number } | null | undefined,
): boolean {
  if (!error) return false
  if (error.name === 'AuthRetryableFetchError') return true
  return typeof error.status === 'number' && (error.status === 429 || error.status >= 500)
}
