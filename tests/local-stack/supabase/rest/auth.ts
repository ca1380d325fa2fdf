import { type VerifiedClaims, verifyToken } from '../keys'
import { restError } from './errors'

/** The database role and JWT claims a request runs with. */
export interface RequestAuth {
  role: 'anon' | 'authenticated' | 'service_role'
  claims: Record<string, unknown>
  /** Whether a JWT with a non-anon role was presented (PostgREST's 401 vs 403 for 42501). */
  authenticated: boolean
}

const ROLES = new Set(['anon', 'authenticated', 'service_role'])

function jwtError(code: string, message: string) {
  const description = message.replace(/"/g, "'")
  return restError(401, code, message, null, null, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"`,
  })
}

function bearerToken(headers: Headers): string | null {
  const authorization = headers.get('authorization')
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    return match ? match[1] : ''
  }
  return headers.get('apikey')
}

/** Verified tokens' claims, used until their `exp` (the keys never change); oldest go first. */
const verified = new Map<string, VerifiedClaims>()
const VERIFIED_MAX = 5_000

async function verifyCached(token: string): Promise<VerifiedClaims> {
  const cached = verified.get(token)
  if (cached && (cached.exp === undefined || cached.exp > Date.now() / 1000)) return cached
  verified.delete(token)
  const claims = await verifyToken(token)
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string)
  verified.set(token, claims)
  return claims
}

/** PostgREST's JWT check: no token is anon, a bad one 401, only the three API roles. */
export async function authenticate(headers: Headers): Promise<RequestAuth> {
  const token = bearerToken(headers)
  if (token === null) return { role: 'anon', claims: { role: 'anon' }, authenticated: false }
  const parts = token.split('.').length
  if (parts !== 3) throw jwtError('PGRST301', `Expected 3 parts in JWT; got ${parts}`)
  let claims: Record<string, unknown>
  try {
    claims = await verifyCached(token)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'ERR_JWT_EXPIRED') throw jwtError('PGRST303', 'JWT expired')
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED')
      throw jwtError('PGRST303', (error as Error).message)
    throw jwtError('PGRST301', 'No suitable key or wrong key type')
  }
  const role = typeof claims.role === 'string' && claims.role !== '' ? claims.role : 'anon'
  if (!ROLES.has(role)) {
    throw restError(403, '42501', `permission denied to set role "${role}"`)
  }
  return {
    role: role as RequestAuth['role'],
    claims: { ...claims, role },
    authenticated: role !== 'anon',
  }
}
