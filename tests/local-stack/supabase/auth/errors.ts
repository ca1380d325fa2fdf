import { API_VERSION, json } from '../http'

/** A GoTrue API error: HTTP status, error code and message (supabase/auth apierrors). */
export class AuthError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

/** An OAuth-style error, rendered as {error, error_description} (e.g. missing refresh_token). */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message)
  }
}

/** GoTrue's errors by code (supabase/auth apierrors): HTTP status and message. */
const ERRORS = {
  invalid_credentials: [400, 'Invalid login credentials'],
  email_not_confirmed: [400, 'Email not confirmed'],
  otp_expired: [403, 'Email link is invalid or has expired'],
  no_authorization: [401, 'This endpoint requires a valid Bearer token'],
  not_admin: [403, 'User not allowed'],
  user_not_found: [404, 'User not found'],
  session_not_found: [403, 'Session from session_id claim in JWT does not exist'],
  same_password: [422, 'New password should be different from the old password.'],
  reauthentication_needed: [400, 'Password update requires reauthentication'],
  reauthentication_not_valid: [422, 'Nonce has expired or is invalid'],
  current_password_required: [400, 'Current password required when setting new password.'],
  current_password_invalid: [400, 'Current password required when setting new password.'],
  refresh_token_not_found: [400, 'Invalid Refresh Token: Refresh Token Not Found'],
  refresh_token_already_used: [400, 'Invalid Refresh Token: Already Used'],
  flow_state_not_found: [404, 'invalid flow state, no valid flow state found'],
  flow_state_expired: [422, 'invalid flow state, flow state has expired'],
  bad_code_verifier: [400, 'code challenge does not match previously saved code verifier'],
  email_exists: [422, 'A user with this email address has already been registered'],
} as const

/** The GoTrue error of `code`, with its message unless another is given. */
export function authError(code: keyof typeof ERRORS, message?: string) {
  const [status, text] = ERRORS[code]
  return new AuthError(status, code, message ?? text)
}

export const errors = {
  validation: (message: string, status = 400) =>
    new AuthError(status, 'validation_failed', message),
  badJwt: (detail: string) =>
    new AuthError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${detail}`),
  weakPassword: () =>
    new AuthError(422, 'weak_password', 'Password should be at least 6 characters.', {
      weak_password: { reasons: ['length'] },
    }),
}

/** GoTrue's `{code, message}` when asked by X-Supabase-Api-Version, else the legacy shape. */
export function renderAuthError(request: Request, error: AuthError | OAuthError): Response {
  if (error instanceof OAuthError) {
    return json({ error: error.error, error_description: error.message }, { status: error.status })
  }
  const versioned = (request.headers.get('x-supabase-api-version') ?? '') >= API_VERSION
  if (versioned) {
    return json(
      { code: error.code, message: error.message, ...error.extra },
      { status: error.status, headers: { 'x-supabase-api-version': API_VERSION } },
    )
  }
  return json(
    { code: error.status, error_code: error.code, msg: error.message, ...error.extra },
    { status: error.status, headers: { 'x-sb-error-code': error.code } },
  )
}
