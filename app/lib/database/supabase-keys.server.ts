import { type Env, getEnv } from '~/env.server'

/**
 * For one visitor: Auth calls carry the secret key and the visitor's `Sb-Forwarded-For`, the
 * others the public key; undefined without a secret key.
 */
export function authCallsOnBehalfOf(
  address: string | null,
  env: Env = getEnv(),
): typeof fetch | undefined {
  if (!env.SUPABASE_SERVICE_ROLE_KEY.startsWith('sb_secret_')) return undefined
  const authUrl = `${env.SUPABASE_URL}/auth/v1/`
  const secret = env.SUPABASE_SERVICE_ROLE_KEY
  const publicBearer = `Bearer ${env.SUPABASE_ANON_KEY}`
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    if (!url.startsWith(authUrl)) return fetch(input, init)
    const headers = new Headers(input instanceof Request ? input.headers : undefined)
    new Headers(init?.headers).forEach((value, name) => headers.set(name, value))
    headers.set('apikey', secret)
    // A user's token stays; the key itself, sent as the bearer, becomes the secret key (a
    // new key in Authorization must equal the apikey header).
    if (headers.get('Authorization') === publicBearer)
      headers.set('Authorization', `Bearer ${secret}`)
    if (address) headers.set('Sb-Forwarded-For', address)
    else headers.delete('Sb-Forwarded-For')
    return fetch(input, { ...init, headers })
  }
}
