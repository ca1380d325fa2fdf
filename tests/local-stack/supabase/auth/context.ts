import type { Database } from '../../database'
import type { MailTemplates } from './mail-templates'

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
}

export interface AuthContext {
  db: Database
  config: AuthConfig
}

/** The `iss` claim of access tokens, like GoTrue's API_EXTERNAL_URL. */
export function issuer(config: AuthConfig) {
  return `${config.url}/auth/v1`
}
