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

export const errors = {
  invalidCredentials: () => new AuthError(400, 'invalid_credentials', 'Invalid login credentials'),
  emailNotConfirmed: () => new AuthError(400, 'email_not_confirmed', 'Email not confirmed'),
  validation: (message: string, status = 400) =>
    new AuthError(status, 'validation_failed', message),
  otpExpired: (message = 'Email link is invalid or has expired') =>
    new AuthError(403, 'otp_expired', message),
  noAuthorization: () =>
    new AuthError(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
  badJwt: (detail: string) =>
    new AuthError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${detail}`),
  notAdmin: () => new AuthError(403, 'not_admin', 'User not allowed'),
  userNotFound: () => new AuthError(404, 'user_not_found', 'User not found'),
  sessionNotFound: () =>
    new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist'),
  weakPassword: () =>
    new AuthError(422, 'weak_password', 'Password should be at least 6 characters.', {
      weak_password: { reasons: ['length'] },
    }),
  samePassword: () =>
    new AuthError(422, 'same_password', 'New password should be different from the old password.'),
  reauthenticationNeeded: () =>
    new AuthError(400, 'reauthentication_needed', 'Password update requires reauthentication'),
  reauthenticationNotValid: () =>
    new AuthError(422, 'reauthentication_not_valid', 'Nonce has expired or is invalid'),
  currentPasswordRequired: () =>
    new AuthError(
      400,
      'current_password_required',
      'Current password required when setting new password.',
    ),
  currentPasswordInvalid: () =>
    new AuthError(
      400,
      'current_password_invalid',
      'Current password required when setting new password.',
    ),
  refreshTokenNotFound: () =>
    new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found'),
  refreshTokenAlreadyUsed: () =>
    new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
  flowStateNotFound: () =>
    new AuthError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found'),
  flowStateExpired: () =>
    new AuthError(422, 'flow_state_expired', 'invalid flow state, flow state has expired'),
  badCodeVerifier: () =>
    new AuthError(
      400,
      'bad_code_verifier',
      'code challenge does not match previously saved code verifier',
    ),
  emailExists: () =>
    new AuthError(
      422,
      'email_exists',
      'A user with this email address has already been registered',
    ),
}

/**
 * Renders an error like GoTrue: `{code, message}` plus the echoed X-Supabase-Api-Version
 * header when the client sent that header (auth-js always does), else the legacy
 * `{code: <status>, error_code, msg}` shape with `x-sb-error-code`.
 */
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
