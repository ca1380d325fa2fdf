import { hash } from 'node:crypto'

import type { AsUser } from '~/lib/database/database.server'
import { ExpiringCache } from '~/lib/server/expiring-cache'

import type { SessionUser } from './session.server'

/** What a verified session gives a request: the user and the token to read as them. */
export interface VerifiedSession {
  user: SessionUser
  asUser: AsUser
}

/**
 * Sessions this process has verified, by a hash of the request's whole `Cookie` header:
 * the same cookies again (the next page load, a prefetch) mean the same access token, whose
 * signature and claims were checked, so they are not decoded and verified again. An entry
 * is used for at most 5 minutes and never within 2 minutes of the token's expiry, so
 * supabase-js still refreshes the session (which it does within 90 s of expiry) exactly
 * as before. Any change of cookie (a refresh, a sign-out, a new sign-in) is a new key.
 * Only the token's verification is remembered: whether its session still exists is asked
 * on every request (`sessionState` in session.server.ts), so an ended session is refused at once.
 */
export class VerifiedSessions {
  private readonly entries: ExpiringCache<VerifiedSession>

  constructor(
    maxEntries = 10_000,
    private readonly maxAgeSeconds = 300,
    private readonly expiryMarginSeconds = 120,
    private readonly now = () => Date.now() / 1000,
  ) {
    this.entries = new ExpiringCache(maxEntries, now)
  }

  recall(key: string): VerifiedSession | null {
    return this.entries.get(key) ?? null
  }

  remember(key: string, session: VerifiedSession, tokenExpiresAt: number) {
    const until = Math.min(
      tokenExpiresAt - this.expiryMarginSeconds,
      this.now() + this.maxAgeSeconds,
    )
    this.entries.set(key, session, until)
  }

  forget(key: string) {
    this.entries.delete(key)
  }

  clear() {
    this.entries.clear()
  }

  get size() {
    return this.entries.size
  }
}

export const verifiedSessions = new VerifiedSessions()

/** The verified-sessions key of a request that carries Supabase auth cookies, else null. */
export function verifiedSessionKey(request: Request) {
  const cookie = request.headers.get('Cookie')
  if (!cookie || !cookie.includes('-auth-token')) return null
  // One-shot: no Hash object per request.
  return hash('sha256', cookie, 'base64url')
}
