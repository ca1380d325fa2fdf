import { createHash } from 'node:crypto'

import { getEnv } from '~/env.server'

/**
 * The key that signs one of our own cookies, derived from the service-role secret and the
 * cookie's purpose: nobody without the secret can make such a cookie, and a cookie made for
 * one purpose is no good for another.
 */
export function cookieSecret(purpose: string) {
  return createHash('sha256')
    .update(`${purpose}:${getEnv().SUPABASE_SERVICE_ROLE_KEY}`)
    .digest('base64url')
}
