import { createHash } from 'node:crypto'

import { getEnv } from '~/env.server'

/** Nobody without the secret can make such a cookie, nor use one purpose's for another. */
export function cookieSecret(purpose: string) {
  return createHash('sha256')
    .update(`${purpose}:${getEnv().SUPABASE_SERVICE_ROLE_KEY}`)
    .digest('base64url')
}
