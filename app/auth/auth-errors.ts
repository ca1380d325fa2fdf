/** Said of a link with no token behind it: used, replaced or made up (no way to tell which). */
export const LINK_NOT_VALID = "This link isn't valid or has expired"

/** A mail asked for again within its minute (rate-limits.server.ts `MAIL_MINUTE`). */
export const mailMinuteMessage = (retryAfterSeconds: number) =>
  `We sent an email to this address less than a minute ago; you can ask again in ${retryAfterSeconds} s.`

/** The auth server refused this browser's sign-up mail (its hourly budget): nothing was sent. */
export const mailNotSentMessage = (email: string, wait: string) =>
  `We could not send the email to ${email}: too many emails went out from Subscribely in the last hour. Nothing was sent; please sign up again in ${wait}.`

// Unknown codes get the generic message, so a visitor never sees a raw server error.
const MESSAGES: Record<string, string> = {
  invalid_credentials: 'That email and password do not match. Check them and try again.',
  email_not_confirmed:
    'Please confirm your email address first: open the link in the email we sent you, or send the confirmation again.',
  user_already_exists: 'An account with this email already exists. Sign in instead.',
  email_exists: 'An account with this email already exists. Sign in instead.',
  weak_password: 'That password is too easy to guess. Choose a longer, less common one.',
  same_password: 'Choose a password that is different from your current one.',
  otp_expired: 'That link is invalid or has expired. Request a new one.',
  flow_state_expired: 'That link has expired. Please start again.',
  flow_state_not_found: "That link isn't valid or has expired. Please start again.",
  bad_code_verifier: 'That link was opened in a different browser. Open it where you started.',
  over_request_rate_limit: 'Too many attempts. Please wait a minute and try again.',
  over_email_send_rate_limit: 'Too many emails sent. Please wait a minute and try again.',
  user_not_found: 'We could not find an account with that email.',
  session_not_found: 'Your session has ended. Please sign in again.',
  signup_disabled: 'New sign-ups are currently closed.',
}

const GENERIC_AUTH_ERROR = 'Something went wrong. Please try again in a moment.'

export function authErrorMessage(error: { code?: string; status?: number } | null | undefined) {
  if (!error) return GENERIC_AUTH_ERROR
  if (error.code && MESSAGES[error.code]) return MESSAGES[error.code]
  if (error.status === 429) return MESSAGES.over_request_rate_limit
  return GENERIC_AUTH_ERROR
}

/** 429 when the auth server refused for its rate limits (the message says to wait), else 400. */
export function authFailureStatus(errorCode: string | undefined) {
  return errorCode === 'over_request_rate_limit' || errorCode === 'over_email_send_rate_limit'
    ? 429
    : 400
}

export const SIGN_IN_PAGE_ERRORS: Record<string, string> = {
  auth_failed: "That link isn't valid or has expired, so it did not sign you in. Please try again.",
}

// After `?error=auth_failed`, by the reason cookie; a used, replaced or made-up link fail alike.
export const AUTH_FAILURE_MESSAGES = {
  recovery:
    "That password reset link isn't valid or has expired: each link works once, within an hour. Send yourself a new one.",
  signup:
    "That confirmation link isn't valid or has expired. Already confirmed? Sign in below. If not, send the confirmation again.",
  magiclink:
    "That sign-in link isn't valid or has expired: each link works once, within an hour. Send yourself a new one below.",
  email_change:
    "That email-change link isn't valid or has expired. Sign in, then ask for the change again in Account settings.",
  another_account:
    'That link was for a different account from the one this browser asked for, so it did not sign you in. If the account is yours, ask for a new link or sign in below.',
} satisfies Record<string, string>
