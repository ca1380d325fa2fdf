import type { Database } from '../../database'
import { LOCAL_PROJECT_KEYS } from '../gateway'
import type { SupabaseEmulatorOptions } from '../index'
import { loadMailTemplates, projectConfig } from './mail-templates'
import { type AuthLimits, DEFAULT_RATE_LIMITS } from './rate-limits'

/** Settings of the emulated GoTrue, from the project's options (README.md). */
export function authConfig(options: SupabaseEmulatorOptions) {
  const project = projectConfig()
  return {
    url: '',
    siteUrl: options.siteUrl.replace(/\/+$/, ''),
    redirectAllowList: options.redirectAllowList ?? [],
    accessTokenTtlSeconds: 3600,
    otpTtlSeconds: 3600,
    flowStateTtlSeconds: 300,
    refreshTokenReuseIntervalSeconds: 10,
    obfuscateExistingSignups: options.obfuscateExistingSignups ?? true,
    secureEmailChange: true,
    mailTemplates: loadMailTemplates(project),
    // `[auth.email] secure_password_change`, false when absent as in the CLI's template.
    securePasswordChange: project.auth?.email?.secure_password_change === true,
    // The hosted setting the CLI's config.toml has no key for (docs/going-live.md).
    requireCurrentPassword: true,
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...options.rateLimits },
    mailMaxFrequencySeconds: options.mailMaxFrequencySeconds ?? 60,
    sbForwardedFor: options.sbForwardedFor ?? false,
    jwtSigning: options.jwtSigning ?? 'asymmetric',
    disableSignup: options.disableSignup ?? false,
    apiKeys: options.apiKeys ?? LOCAL_PROJECT_KEYS,
    // Handing an auth mail to the provider's SMTP server, which GoTrue does before answering.
    mailDeliveryMs: 50,
  }
}
export type AuthConfig = ReturnType<typeof authConfig>

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
