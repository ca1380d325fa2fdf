import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

import type { Database } from '../database'
import type { AuthConfig } from './auth/context'
import { loadMailTemplates } from './auth/mail-templates'
import { projectAuthSettings } from './auth/project-settings'
import { createAuthLimits, DEFAULT_RATE_LIMITS, type RateLimitSettings } from './auth/rate-limits'
import { checkAllowList } from './auth/redirects'
import { createAuthHandler } from './auth/router'
import { type SupabaseFault, SupabaseFaults } from './faults'
import { LOCAL_PROJECT_KEYS, type ProjectKeys } from './gateway'
import type { JwtSigning } from './keys'
import { clearMail, listMail, type Mail } from './mail'
import { pageRoutes } from './pages'
import { createRestHandler } from './rest/handler'
import type { RestPoolOptions } from './rest/pool'
import { createListener } from './server'
import { createStorageHandler } from './storage/router'

export type { SupabaseFault } from './faults'
export type { JwtSigning } from './keys'
export {
  LOCAL_ANON_KEY,
  LOCAL_JWKS,
  LOCAL_JWT_SECRET,
  LOCAL_PUBLISHABLE_KEY,
  LOCAL_SECRET_KEY,
  LOCAL_SERVICE_ROLE_KEY,
  LOCAL_SIGNING_KID,
  signAccessToken,
  verifyToken,
} from './keys'
export type { Mail } from './mail'

export interface SupabaseEmulatorOptions {
  database: Database
  /** 0 or undefined = a free port; development uses 54421. */
  port?: number
  /** GoTrue SITE_URL: default redirect and base of the redirect allow-list. */
  siteUrl: string
  /**
   * The redirect allow-list (supabase/config.toml `additional_redirect_urls`): globs matched
   * against the whole URL, query included, with `.` and `/` as separators (`*` stops at
   * them, `**` does not). Redirects on SITE_URL's scheme, host and port or on a loopback IP
   * need no entry; anything else falls back to the bare SITE_URL.
   */
  redirectAllowList?: string[]
  /**
   * Repeated sign-up of a confirmed email: true (default, hosted Supabase with email
   * confirmation on, as supabase/config.toml sets it) → 200 with a made-up user whose
   * `identities` is [] and no mail; false (confirmation off) → 422 user_already_exists.
   */
  obfuscateExistingSignups?: boolean
  /**
   * The auth server's rate limits (README, "Rate limits"): per-IP requests per 5 minutes
   * (`tokenRefresh` 150, `verify` 30, `otp` 30) and the project's mails per hour
   * (`emailSent`, 4 as in supabase/config.toml). A test raises one only to say it is not
   * what that test is about (README, "Rate limits").
   */
  rateLimits?: Partial<RateLimitSettings>
  /** Seconds between two mails of one kind to one user (config.toml `max_frequency`, 60). */
  mailMaxFrequencySeconds?: number
  /**
   * The project's "IP address forwarding" setting: `Sb-Forwarded-For` (sent with a secret
   * key) names the client for the per-IP limits. Off by default, as on a new project.
   */
  sbForwardedFor?: boolean
  /**
   * How the project signs access tokens: `asymmetric` (default: an ES256 signing key in the
   * JWKS, as new projects have) or `legacy` (the JWT secret, HS256, an empty JWKS: a project
   * that has not moved to signing keys).
   */
  jwtSigning?: JwtSigning
  /**
   * The project's "Allow new users to sign up" turned off (`disable_signup`): /settings says
   * so, and sign-up, a one-time code and an OAuth sign-in refuse an address without a user.
   */
  disableSignup?: boolean
  /**
   * The project's API keys (legacy HS256 JWTs signed with the local JWT secret, as a
   * project's legacy keys are signed with its own; and the new opaque keys). Default: the
   * published local keys. The deploy rehearsal passes keys made for the run
   * (../fresh-keys.ts), which the published ones then are not.
   */
  apiKeys?: ProjectKeys
  /**
   * PostgREST's connection pool, `db-pool` and `db-pool-acquisition-timeout` (ms): default
   * PostgREST's, 10 connections and 10 s; Supabase sizes the pool by the compute add-on.
   */
  restPool?: RestPoolOptions
}

export interface SupabaseEmulator {
  /** http://localhost:<port>; the ssr cookie for it is `sb-localhost-auth-token`. */
  url: string
  port: number
  close(): Promise<void>
  inbox: {
    list(): Promise<Mail[]>
    latestFor(email: string): Promise<Mail | undefined>
    clear(): Promise<void>
  }
  /** Requests under /auth/v1 by path below it, e.g. { '/user': 2, '/token': 1 }. */
  countsByPath(): Record<string, number>
  /**
   * The client addresses the auth server's per-IP limits counted requests against (the
   * connection's peer, or the one address `Sb-Forwarded-For` named), in the order first seen.
   */
  authClients(): string[]
  /** Requests under /rest/v1 by path below it, e.g. { '/rpc/session_is_active': 3 }. */
  restCountsByPath(): Record<string, number>
  /** Makes the next matching requests wait and/or fail (Auth and PostgREST; tests only). */
  addFault(fault: SupabaseFault): void
  clearFaults(): void
}

/** Starts the local Supabase (Auth, PostgREST, Storage, inbox) on 127.0.0.1. */
export async function startSupabaseEmulator(
  options: SupabaseEmulatorOptions,
): Promise<SupabaseEmulator> {
  const db = options.database
  checkAllowList(options.redirectAllowList ?? [])
  const config: AuthConfig = {
    url: '',
    siteUrl: options.siteUrl.replace(/\/+$/, ''),
    redirectAllowList: options.redirectAllowList ?? [],
    accessTokenTtlSeconds: 3600,
    otpTtlSeconds: 3600,
    flowStateTtlSeconds: 300,
    refreshTokenReuseIntervalSeconds: 10,
    obfuscateExistingSignups: options.obfuscateExistingSignups ?? true,
    secureEmailChange: true,
    mailTemplates: loadMailTemplates(),
    securePasswordChange: projectAuthSettings().securePasswordChange,
    // The hosted project's `security_update_password_require_current_password` (the CLI's
    // config.toml has no key for it: docs/going-live.md).
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
  const limits = createAuthLimits(config.rateLimits, { sbForwardedFor: config.sbForwardedFor })
  const counts = new Map<string, number>()
  const restCounts = new Map<string, number>()
  const faults = new SupabaseFaults()
  const listener = createListener(() => config.url, {
    auth: createAuthHandler({ db, config, limits }),
    storage: createStorageHandler(db, config.apiKeys),
    rest: createRestHandler({ database: db, pool: options.restPool }),
    apiKeys: config.apiKeys,
    pages: pageRoutes(db),
    onAuthRequest: (path) => counts.set(path, (counts.get(path) ?? 0) + 1),
    onRestRequest: (path) => restCounts.set(path, (restCounts.get(path) ?? 0) + 1),
    faults,
  })
  const server = createServer(listener)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  config.url = `http://localhost:${port}`

  return {
    url: config.url,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeAllConnections()
      }),
    inbox: {
      list: () => listMail(db),
      latestFor: async (email) => (await listMail(db, email))[0],
      clear: () => clearMail(db),
    },
    countsByPath: () => Object.fromEntries(counts),
    restCountsByPath: () => Object.fromEntries(restCounts),
    authClients: () => limits.clients(),
    addFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
  }
}
