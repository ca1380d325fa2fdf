import { createHash } from 'node:crypto'

import { createCookie } from '@remix-run/node'

import { type Env, getEnv } from '~/env.server'

/**
 * A cookie of the auth flows: HttpOnly, same-site, `__Host-` in production as the session's;
 * signed with `purpose`'s key from COOKIE_SECRET, else the Supabase secret key (docs/security.md).
 */
export function authCookie(name: string, maxAge: number, purpose?: string) {
  const env = getEnv()
  const production = env.NODE_ENV === 'production'
  const secret = `${purpose}:${env.COOKIE_SECRET ?? env.SUPABASE_SERVICE_ROLE_KEY}`
  return createCookie(production ? `__Host-${name}` : name, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    maxAge,
    ...(purpose ? { secrets: [createHash('sha256').update(secret).digest('base64url')] } : {}),
    secure: production,
  })
}

/** A short-lived notice for a fixed redirect's page, read once. */
export function readOnceCookie(name: string) {
  const cookie = () => authCookie(name, 5 * 60)
  return {
    remember: (value: string) => cookie().serialize(value),
    /** The value, and the Set-Cookie that forgets it. */
    take: async (request: Request) => ({
      value: (await cookie().parse(request.headers.get('Cookie'))) as unknown,
      clear: await cookie().serialize('', { maxAge: 0 }),
    }),
  }
}

/**
 * The session's @supabase/ssr `cookieOptions` (its chunks and PKCE verifier share the name):
 * `__Host-sb-<ref>-auth-token` in production, Supabase's own name over http.
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
