import {
  decodeProtectedHeader,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose'

// Fixed, public keys (the Supabase CLI's local values): the app refuses them in production.
export const LOCAL_JWT_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long'

/** Anon and service_role API keys (HS256, Supabase CLI demo values). */
export const LOCAL_ANON_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0'
export const LOCAL_SERVICE_ROLE_KEY =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU'

/** The new keys: not JWTs, the gateway (`gateway.ts`) maps them to anon and service_role. */
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
 * How a project signs access tokens: an ES256 signing key published in the JWKS; the legacy
 * HS256 secret (an empty JWKS); or `standby`, after "Migrate JWT secret", the ES256 key
 * published while the legacy secret still signs.
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

/** Verifies an API key (HS256) or access token (ES256); throws on anything invalid. */
export async function verifyToken(token: string): Promise<VerifiedClaims> {
  const header = decodeProtectedHeader(token)
  if (header.alg === 'HS256')
    return (await jwtVerify(token, hsKey, { algorithms: ['HS256'] })).payload
  if (header.alg === 'ES256') {
    return (await jwtVerify(token, await publicKey, { algorithms: ['ES256'] })).payload
  }
  throw new Error(`Unsupported JWT algorithm ${String(header.alg)}`)
}
