/**
 * CPU of reading a signed-in request's session from its cookies, per request, in this process
 * (docs/decisions/0003-sessions.md): what `readSession` in app/auth/session.server.ts
 * does before the existence check (a Supabase client on the request's cookies, the session
 * decoded, its ES256 token verified against a JWKS in hand with `getClaims`), against what a
 * cache of verified sessions by the `Cookie` header's hash did instead (a SHA-256 and a map
 * lookup). No network: the token is far from expiry and the keys are given. Batches of both
 * alternate, so the machine's drift touches each alike.
 *
 *   node --import tsx tools/bench/session-cost.ts [calls per batch=2000] [rounds=5]
 */
import { createHash, generateKeyPairSync, hash, randomUUID, sign } from 'node:crypto'

import { createServerClient, parseCookieHeader } from '@supabase/ssr'
import type { JWK } from '@supabase/supabase-js'

const calls = Number(process.argv[2] ?? 2000)
const rounds = Number(process.argv[3] ?? 5)
const url = 'http://127.0.0.1:54321'

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const kid = randomUUID()
const jwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', key_ops: ['verify'] }
const jwks = { keys: [jwk as JWK] }
const now = Math.floor(Date.now() / 1000)
const userId = randomUUID()
const claims = {
  sub: userId,
  email: 'reader@example.com',
  role: 'authenticated',
  aud: 'authenticated',
  session_id: randomUUID(),
  iat: now,
  exp: now + 900,
  amr: [{ method: 'password', timestamp: now }],
  user_metadata: {},
}
const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
const signed = `${part({ alg: 'ES256', typ: 'JWT', kid })}.${part(claims)}`
const signature = sign('sha256', Buffer.from(signed), {
  key: privateKey,
  dsaEncoding: 'ieee-p1363',
})
const accessToken = `${signed}.${signature.toString('base64url')}`
const session = {
  access_token: accessToken,
  refresh_token: randomUUID(),
  token_type: 'bearer',
  expires_in: 900,
  expires_at: now + 900,
  user: { id: userId, email: claims.email, aud: 'authenticated', role: 'authenticated' },
}
const cookie = `sb-127-auth-token=base64-${part(session)}; consent=yes`

async function verified() {
  const supabase = createServerClient(url, 'anon', {
    cookies: { getAll: () => parseCookieHeader(cookie), setAll: () => {} },
  })
  const { data } = await supabase.auth.getSession()
  const token = data.session?.access_token
  if (!token) throw new Error('no session in the cookie')
  const { data: verifiedClaims, error } = await supabase.auth.getClaims(token, { jwks })
  if (error || verifiedClaims?.claims.sub !== userId) throw error ?? new Error('not verified')
}

const remembered = new Map<string, true>([[hash('sha256', cookie, 'base64url'), true]])
async function recalled() {
  if (!remembered.get(createHash('sha256').update(cookie).digest('base64url'))) throw new Error()
}

async function cpuPerCall(work: () => Promise<void>) {
  const start = process.cpuUsage()
  for (let call = 0; call < calls; call++) await work()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / calls
}

await cpuPerCall(verified)
await cpuPerCall(recalled)
const figures = { verified: [] as number[], recalled: [] as number[] }
for (let round = 0; round < rounds; round++) {
  figures.verified.push(await cpuPerCall(verified))
  figures.recalled.push(await cpuPerCall(recalled))
}
const show = (values: number[]) => values.map((value) => value.toFixed(1)).join(' / ')
console.log(`CPU per request, µs (${rounds} alternating rounds of ${calls} calls):`)
console.log(`  client + decode + getClaims (ES256, keys in hand): ${show(figures.verified)}`)
console.log(`  recognised by the Cookie header's SHA-256:          ${show(figures.recalled)}`)
