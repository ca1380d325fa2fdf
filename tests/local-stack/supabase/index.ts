import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Database } from '../database'
import type { AuthConfig } from './auth/context'
import { createAuthHandler } from './auth/router'
import { clearMail, listMail, type Mail } from './mail'
import { pageRoutes } from './pages'
import { createListener, loadRestHandler, type Handler } from './server'
import { LOCAL_ANON_KEY, LOCAL_SERVICE_ROLE_KEY } from './keys'
import { createStorageHandler } from './storage/router'

export type { Mail } from './mail'
export {
  LOCAL_ANON_KEY,
  LOCAL_SERVICE_ROLE_KEY,
  LOCAL_JWKS,
  LOCAL_JWT_SECRET,
  LOCAL_SIGNING_KID,
  signAccessToken,
  verifyToken,
} from './keys'

export interface SupabaseEmulatorOptions {
  database: Database
  /** 0 or undefined = a free port; development uses 54421. */
  port?: number
  /** GoTrue SITE_URL: default redirect and base of the redirect allow-list. */
  siteUrl: string
  /** Extra allowed redirect URLs: prefixes, or globs with `*` (no dots/slashes) and `**`. */
  redirectAllowList?: string[]
  /** Access token lifetime, default 3600. */
  accessTokenTtlSeconds?: number
  /** Email links and codes, default 3600. */
  otpTtlSeconds?: number
  /** PKCE auth codes, default 300. */
  flowStateTtlSeconds?: number
  /** How long a just-rotated refresh token may still be used (GoTrue default 10). */
  refreshTokenReuseIntervalSeconds?: number
  /**
   * Repeated sign-up of a confirmed email: true (default, hosted Supabase with email
   * confirmation on, as supabase/config.toml sets it) → 200 with a made-up user whose
   * `identities` is [] and no mail; false (confirmation off) → 422 user_already_exists.
   */
  obfuscateExistingSignups?: boolean
  /** Email change needs confirming from both addresses (GoTrue default true). */
  secureEmailChange?: boolean
  /**
   * "Secure password change" (supabase/config.toml `secure_password_change = true`, the
   * default here): a password update from a session older than 24 hours needs the nonce
   * that POST /reauthenticate mails, else 400 reauthentication_needed.
   */
  securePasswordChange?: boolean
  /**
   * The project's API keys (HS256 JWTs signed with the local JWT secret, as a project's
   * legacy keys are signed with its own). Default: the published local keys. The deploy
   * rehearsal passes keys made for the run (../fresh-keys.ts), which the published ones
   * then are not.
   */
  apiKeys?: { anon: string; serviceRole: string }
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
  /** Total HTTP requests served under /auth/v1. */
  requestCount(): number
  /** Requests under /auth/v1 by path below it, e.g. { '/user': 2, '/token': 1 }. */
  countsByPath(): Record<string, number>
  /** Requests under /rest/v1 by path below it, e.g. { '/rpc/session_is_active': 3 }. */
  restCountsByPath(): Record<string, number>
}

/** Starts the local Supabase (Auth, PostgREST, Storage, inbox) on 127.0.0.1. */
export async function startSupabaseEmulator(
  options: SupabaseEmulatorOptions,
): Promise<SupabaseEmulator> {
  const db = options.database
  const config: AuthConfig = {
    url: '',
    siteUrl: options.siteUrl.replace(/\/+$/, ''),
    redirectAllowList: options.redirectAllowList ?? [],
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
    otpTtlSeconds: options.otpTtlSeconds ?? 3600,
    flowStateTtlSeconds: options.flowStateTtlSeconds ?? 300,
    refreshTokenReuseIntervalSeconds: options.refreshTokenReuseIntervalSeconds ?? 10,
    obfuscateExistingSignups: options.obfuscateExistingSignups ?? true,
    secureEmailChange: options.secureEmailChange ?? true,
    securePasswordChange: options.securePasswordChange ?? true,
    apiKeys: options.apiKeys
      ? [options.apiKeys.anon, options.apiKeys.serviceRole]
      : [LOCAL_ANON_KEY, LOCAL_SERVICE_ROLE_KEY],
  }
  const counts = new Map<string, number>()
  const restCounts = new Map<string, number>()
  let rest: Promise<Handler> | undefined
  const listener = createListener(() => config.url, {
    auth: createAuthHandler({ db, config }),
    storage: createStorageHandler(db),
    rest: () => (rest ??= loadRestHandler(db)),
    pages: pageRoutes(db),
    onAuthRequest: (path) => counts.set(path, (counts.get(path) ?? 0) + 1),
    onRestRequest: (path) => restCounts.set(path, (restCounts.get(path) ?? 0) + 1),
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
    requestCount: () => [...counts.values()].reduce((sum, n) => sum + n, 0),
    countsByPath: () => Object.fromEntries(counts),
    restCountsByPath: () => Object.fromEntries(restCounts),
  }
}
