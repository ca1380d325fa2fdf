import type { JWK } from '@supabase/supabase-js'

import { getEnv } from '~/env.server'
import { logger } from '~/lib/server/logger.server'

export type Jwks = { keys: JWK[] }

/** How long fetched keys are used before they are fetched again (auth-js's JWKS cache time). */
export const SIGNING_KEYS_MAX_AGE_MS = 10 * 60_000
/** After a failed fetch, the keys in hand are used without asking again for this long. */
export const SIGNING_KEYS_RETRY_MS = 30_000
const FETCH_TIMEOUT_MS = 5_000

/**
 * The project's token signing keys (its JWKS), fetched every SIGNING_KEYS_MAX_AGE_MS and
 * handed to auth-js's `getClaims`. auth-js keeps its own copy for the same 10 minutes but
 * drops it when a fetch fails, after which no token can be verified until the auth server
 * answers; these stay in use while it does not, so pages keep working through an auth
 * outage for every token that is still valid. A key the project rotates in is fetched at
 * once (auth-js asks for a `kid` it does not find here); a revoked key stops being trusted
 * with the next successful fetch, as with auth-js's own copy.
 */
export class SigningKeys {
  private jwks: Jwks | undefined
  private nextFetchAt = 0
  private pending: Promise<void> | undefined

  constructor(
    private readonly fetchKeys: () => Promise<Jwks>,
    private readonly now = () => Date.now(),
  ) {}

  /** The keys to verify with; undefined until a fetch has succeeded. */
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
      this.nextFetchAt = this.now() + SIGNING_KEYS_MAX_AGE_MS
    } catch (error) {
      this.nextFetchAt = this.now() + SIGNING_KEYS_RETRY_MS
      logger.warn({ err: error, keptKeys: this.jwks !== undefined }, 'signing keys not fetched')
    }
  }

  /** Tests: the next `current()` fetches again. */
  expireForTests() {
    this.nextFetchAt = 0
  }
}

async function fetchProjectKeys(): Promise<Jwks> {
  const env = getEnv()
  const response = await fetch(`${env.SUPABASE_URL}/auth/v1/.well-known/jwks.json`, {
    headers: { apikey: env.SUPABASE_ANON_KEY },
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  })
  if (!response.ok) throw new Error(`JWKS answered ${response.status}`)
  return (await response.json()) as Jwks
}

export const signingKeys = new SigningKeys(fetchProjectKeys)
