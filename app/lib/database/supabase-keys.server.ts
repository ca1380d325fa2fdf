import { type Env, getEnv } from '~/env.server'

/**
 * Which Supabase key goes where. A project has a public key and a secret one, each either
 * new (`sb_publishable_…`, `sb_secret_…`) or legacy (the `anon` and `service_role` JWTs):
 *
 * - SUPABASE_ANON_KEY (publishable or anon): the session client of each request
 *   (session.server.ts) and every auth call made for a visitor; page reads as the signed-in
 *   user (database.server.ts, with the user's token).
 * - SUPABASE_SERVICE_ROLE_KEY (secret or service_role): the server's own work, which
 *   bypasses row-level security (webhooks, account administration, the session check), and
 *   the secret of the app's signed cookies (cookie-secret.server.ts).
 * - With a secret key (`sb_secret_…`), auth calls made on a visitor's behalf also carry that
 *   key and the visitor's address in `Sb-Forwarded-For`, so that Supabase Auth's per-IP
 *   rate limits count each visitor, not this server. Supabase honours the header only with a
 *   secret key, and only when the project enables "IP address forwarding" (going-live.md).
 *
 * The fetch of a Supabase client that acts for one visitor (the `global.fetch` option):
 * undefined (the client's own) without a secret key. With one, its calls to Supabase Auth
 * are sent with the secret key instead of the public one, and with the visitor's address
 * when it is known (`clientAddress`); every other call (storage, PostgREST) is untouched and
 * keeps the public key, so nothing else gains the secret key's privileges.
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
