import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

import type { Database } from '../database'
import { authConfig } from './auth/context'
import { createAuthLimits, type RateLimitSettings } from './auth/rate-limits'
import { checkAllowList } from './auth/redirects'
import { createAuthHandler } from './auth/router'
import { type SupabaseFault, SupabaseFaults } from './faults'
import type { ProjectKeys } from './gateway'
import type { JwtSigning } from './keys'
import { listMail } from './mail'
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

/** The project's settings (README.md), each defaulting as a new hosted project has it. */
export interface SupabaseEmulatorOptions {
  database: Database
  /** 0 or undefined = a free port; development uses 54421. */
  port?: number
  /** GoTrue SITE_URL: default redirect and base of the redirect allow-list. */
  siteUrl: string
  /** `additional_redirect_urls` (auth/redirects.ts). */
  redirectAllowList?: string[]
  /** A repeated sign-up of a confirmed email: 200 with no identities (true), or 422. */
  obfuscateExistingSignups?: boolean
  /** Per-IP requests per 5 minutes and the project's mails per hour (auth/rate-limits.ts). */
  rateLimits?: Partial<RateLimitSettings>
  /** Seconds between two mails of one kind to one user (config.toml `max_frequency`, 60). */
  mailMaxFrequencySeconds?: number
  /** "IP address forwarding": `Sb-Forwarded-For` (with a secret key) names the client. */
  sbForwardedFor?: boolean
  /** `asymmetric` (ES256 in the JWKS, the default) or `legacy` (the HS256 JWT secret). */
  jwtSigning?: JwtSigning
  /** "Allow new users to sign up" off: only the admin API creates users. */
  disableSignup?: boolean
  /** The project's API keys (default: the published local ones; ../fresh-keys.ts makes others). */
  apiKeys?: ProjectKeys
  /** PostgREST's `db-pool` and `db-pool-acquisition-timeout` (default 10 and 10 s). */
  restPool?: RestPoolOptions
}

export type SupabaseEmulator = Awaited<ReturnType<typeof startSupabaseEmulator>>

/** Starts the local Supabase (Auth, PostgREST, Storage, inbox) on 127.0.0.1. */
export async function startSupabaseEmulator(options: SupabaseEmulatorOptions) {
  const db = options.database
  checkAllowList(options.redirectAllowList ?? [])
  const config = authConfig(options)
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
      latestFor: async (email: string) => (await listMail(db, email))[0],
    },
    /** Requests under /auth/v1 by path below it, e.g. { '/user': 2, '/token': 1 }. */
    countsByPath: () => Object.fromEntries(counts),
    /** Requests under /rest/v1 by path below it, e.g. { '/rpc/session_is_active': 3 }. */
    restCountsByPath: () => Object.fromEntries(restCounts),
    /** The client addresses the per-IP limits counted requests against, first seen first. */
    authClients: () => limits.clients(),
    /** Makes the next matching requests wait and/or fail (Auth and PostgREST; tests only). */
    addFault: (fault: SupabaseFault) => faults.add(fault),
    clearFaults: () => faults.clear(),
  }
}
