import { createCookie } from '@remix-run/node'

import { getEnv } from '~/env.server'
import { cookieSecret } from '~/lib/server/cookie-secret.server'

/**
 * A cookie of the auth flows: HttpOnly, same-site, Secure in production, and signed with a
 * key of its own (`cookieSecret(secret)`) when `secret` names its purpose. Made when used,
 * once the environment has been read.
 */
export function authCookie(name: string, path: string, maxAge: number, secret?: string) {
  return createCookie(name, {
    httpOnly: true,
    sameSite: 'lax',
    path,
    maxAge,
    ...(secret ? { secrets: [cookieSecret(secret)] } : {}),
    secure: getEnv().NODE_ENV === 'production',
  })
}
