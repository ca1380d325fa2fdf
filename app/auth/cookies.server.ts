import { createCookie } from '@remix-run/node'

import { type Env, getEnv } from '~/env.server'
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

/**
 * The Supabase session's cookie options (@supabase/ssr `cookieOptions`, whose `name` its
 * chunks and PKCE verifier carry too): `__Host-sb-<ref>-auth-token` in production, Supabase's
 * own name over plain http in development (docs/decisions/0046-host-prefixed-session-cookies.md).
 */
export function sessionCookieOptions(env: Env) {
  const production = env.NODE_ENV === 'production'
  const name = `sb-${new URL(env.SUPABASE_URL).hostname.split('.')[0]}-auth-token`
  return {
    name: production ? `__Host-${name}` : name,
    path: '/',
    // Only the server reads the session; script on the page never needs it.
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: production,
  }
}
