import type { Database } from '../../database'
import type { ProjectKeys } from '../gateway'
import type { JwtSigning } from '../keys'
import type { MailTemplates } from './mail-templates'
import type { AuthLimits, RateLimitSettings } from './rate-limits'

/** Settings of the emulated GoTrue (resolved from SupabaseEmulatorOptions). */
export interface AuthConfig {
  /** Public base URL of the emulator, e.g. http://localhost:54421 (no trailing slash). */
  url: string
  siteUrl: string
  redirectAllowList: string[]
  accessTokenTtlSeconds: number
  otpTtlSeconds: number
  flowStateTtlSeconds: number
  refreshTokenReuseIntervalSeconds: number
  obfuscateExistingSignups: boolean
  secureEmailChange: boolean
  securePasswordChange: boolean
  /** The auth mails' subjects and bodies (supabase/config.toml's templates). */
  mailTemplates: MailTemplates
  requireCurrentPassword: boolean
  /** The per-IP request limits and the hourly mail budget. */
  rateLimits: RateLimitSettings
  /** `[auth.email] max_frequency` in seconds: between two mails of a kind to one user. */
  mailMaxFrequencySeconds: number
  /** The project's "IP address forwarding" (`security_sb_forwarded_for_enabled`). */
  sbForwardedFor: boolean
  /** How long handing a mail to the SMTP server takes, in milliseconds (emails.ts). */
  mailDeliveryMs: number
  /** The project's API keys, which the gateway accepts (`gateway.ts`). */
  apiKeys: ProjectKeys
  /** How access tokens are signed (keys.ts `JwtSigning`). */
  jwtSigning: JwtSigning
  /** `disable_signup`: no user is created but by the admin API. */
  disableSignup: boolean
}

export interface AuthContext {
  db: Database
  config: AuthConfig
  /** The server's limiters (state kept for its lifetime, like GoTrue's in memory). */
  limits: AuthLimits
}

/** The `iss` claim of access tokens, like GoTrue's API_EXTERNAL_URL. */
export function issuer(config: AuthConfig) {
  return `${config.url}/auth/v1`
}
