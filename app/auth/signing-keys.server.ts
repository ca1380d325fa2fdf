import type { JWK } from '@supabase/supabase-js'

import { getEnv } from '~/env.server'
import { cacheSize } from '~/lib/server/expiring-cache'
import { logger } from '~/lib/server/logger.server'

export type Jwks = { keys: JWK[] }

export const SIGNING_KEYS_MAX_AGE_MS = 10 * 60_000
const MAX_AGE_MS = cacheSize('keys', SIGNING_KEYS_MAX_AGE_MS)
export const SIGNING_KEYS_RETRY_MS = 30_000

/**
 * The JWKS `getClaims` verifies with, fetched every 10 minutes (not once per signed-in page the
 * token cache misses: docs/performance.md) and kept when a fetch fails (auth-js's would not).
 */
export class SigningKeys {
  private jwks: Jwks | undefined
  private nextFetchAt = 0
  private pending: Promise<void> | undefined

  constructor(
    private readonly fetchKeys: () => Promise<Jwks>,
    private readonly now = () => Date.now(),
  ) {}

  /** Undefined until a fetch has succeeded. */
  async current(): Promise<Jwks | undefined> {
    if (this.now() >= this.nextFetchAt) {
      this.pending ??= this.refresh().finally(() => {
        this.pending = undefined
      })
      await this.pending
    }
    return this.jwks
  }

  private async refresh() {
    try {
      const jwks = await this.fetchKeys()
      if (!Array.isArray(jwks?.keys)) throw new Error('no keys in the answer')
      this.jwks = jwks
      this.nextFetchAt = this.now() + MAX_AGE_MS
    } catch (error) {
      this.nextFetchAt = this.now() + SIGNING_KEYS_RETRY_MS
      logger.warn({ err: error, keptKeys: this.jwks !== undefined }, 'signing keys not fetched')
    }
  }
}

async function fetchProjectKeys(): Promise<Jwks> {
  const env = getEnv()
  const response = await fetch(`${env.SUPABASE_URL}/auth/v1/.well-known/jwks.json`, {
    headers: { apikey: env.SUPABASE_ANON_KEY },
    signal: AbortSignal.timeout(5_000),
  })
  if (!response.ok) throw new Error(`JWKS answered ${response.status}`)
  return (await response.json()) as Jwks
}

export const signingKeys = new SigningKeys(fetchProjectKeys)
