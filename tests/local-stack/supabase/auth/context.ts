import type { Database } from '../../database'

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
  /** The API keys the gateway accepts in `apikey` (the project's anon and service_role keys). */
  apiKeys: readonly string[]
}

export interface AuthContext {
  db: Database
  config: AuthConfig
}

/** The `iss` claim of access tokens, like GoTrue's API_EXTERNAL_URL. */
export function issuer(config: AuthConfig) {
  return `${config.url}/auth/v1`
}
