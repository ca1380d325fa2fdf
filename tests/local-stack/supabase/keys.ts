import {
  decodeProtectedHeader,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose'

/**
 * Fixed, public keys of the local Supabase emulator (like the Supabase CLI's local stack).
 * Never use them anywhere but on loopback: the app refuses to start in production with them.
 */

/** HS256 secret of the legacy API keys (the Supabase CLI demo secret). */
export const LOCAL_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long'

/** Anon and service_role API keys (HS256, Supabase CLI demo values). */
export const LOCAL_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0'
export const LOCAL_SERVICE_ROLE_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU'

/**
 * The new-style API keys, beside the legacy ones (the Supabase CLI's fixed local values).
 * Not JWTs: the gateway (`gateway.ts`) maps the publishable key to the anon role and the
 * secret key to service_role, as Supabase's API gateway does.
 */
export const LOCAL_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH'
export const LOCAL_SECRET_KEY = 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz'

/** ES256 signing key for user access tokens; its public half is served at JWKS. */
export const LOCAL_SIGNING_KID = 'local-es256-2026'
const LOCAL_SIGNING_JWK: JWK = {
  kty: 'EC',
  crv: 'P-256',
  x: 'xys1i1i5td35BzGViMRF9Q8A98KhylWDPZGMf_f8uJw',
  y: 'JkZehZi8XDjonln7B6QGtNFlln3pxeF1F73aPsHZTvk',
  d: 'LV1bHKz1uAqrgpEat-Za85uqB-e0bN1yp0ox0wfk4fg',
}

/** The JWKS document (public keys only). */
export const LOCAL_JWKS = {
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: LOCAL_SIGNING_JWK.x,
      y: LOCAL_SIGNING_JWK.y,
      kid: LOCAL_SIGNING_KID,
      alg: 'ES256',
      use: 'sig',
      key_ops: ['verify'],
    },
  ],
}

const hsKey = new TextEncoder().encode(LOCAL_JWT_SECRET)
const privateKey = importJWK({ ...LOCAL_SIGNING_JWK, alg: 'ES256' }, 'ES256')
const publicKey = importJWK({ ...LOCAL_JWKS.keys[0] }, 'ES256')

/**
 * How a project signs its access tokens: with an asymmetric signing key (ES256 with a kid,
 * published in the JWKS), as current projects do; with the legacy JWT secret (HS256,
 * nothing published: the JWKS is empty), as projects made before signing keys still do; or,
 * `standby`, half-way between: after "Migrate JWT secret" the JWKS already publishes the
 * ES256 standby key while the legacy secret still signs every token (HS256, no kid) until
 * the keys are rotated.
 */
export type JwtSigning = 'asymmetric' | 'legacy' | 'standby'

/** Signs an access token the way the project does (`JwtSigning`). */
export async function signAccessToken(
  claims: JWTPayload & Record<string, unknown>,
  signing: JwtSigning = 'asymmetric',
) {
  if (signing !== 'asymmetric')
    return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(hsKey)
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: LOCAL_SIGNING_KID, typ: 'JWT' })
    .sign(await privateKey)
}

export type VerifiedClaims = JWTPayload & { role?: string; sub?: string; [key: string]: unknown }

/**
 * Verifies an API key or access token: HS256 (legacy API keys) or ES256 (user tokens).
 * Throws on a bad signature, an unknown algorithm or an expired token.
 */
export async function verifyToken(token: string): Promise<VerifiedClaims> {
  const header = decodeProtectedHeader(token)
  if (header.alg === 'HS256')
    return (await jwtVerify(token, hsKey, { algorithms: ['HS256'] })).payload
  if (header.alg === 'ES256') {
    return (await jwtVerify(token, await publicKey, { algorithms: ['ES256'] })).payload
  }
  throw new Error(`Unsupported JWT algorithm ${String(header.alg)}`)
}
