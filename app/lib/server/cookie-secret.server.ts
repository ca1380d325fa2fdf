import { createHash } from 'node:crypto'

import { getEnv } from '~/env.server'

/**
 * Nobody without the secret can make such a cookie, nor use one purpose's for another. Its own
 * setting, so that rotating the Supabase key leaves them valid (docs/operations.md).
 */
export function cookieSecret(purpose: string) {
  const { COOKIE_SECRET, SUPABASE_SERVICE_ROLE_KEY } = getEnv()
  return createHash('sha256')
    .update(`${purpose}:${COOKIE_SECRET ?? SUPABASE_SERVICE_ROLE_KEY}`)
    .digest('base64url')
}
