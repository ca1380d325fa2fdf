import { randomBytes } from 'node:crypto'

import type { Queryable } from '../../database'
import { bearerToken } from '../http'
import { signAccessToken, type VerifiedClaims, verifyToken } from '../keys'
import { type AuthConfig, type AuthContext, issuer } from './context'
import { AuthError, authError, errors } from './errors'
import { findUserById, userJson, type UserRow } from './users'

interface SessionRow {
  id: string
  user_id: string
  aal: string
  amr: { method: string; timestamp: number }[]
}

interface RefreshTokenRow {
  id: string
  token: string
  user_id: string
  session_id: string
  parent: string | null
  revoked: boolean
  updated_at: Date
}

function newRefreshToken() {
  return randomBytes(16).toString('base64url')
}

/** Signs the access token of a session with GoTrue's claims (AccessTokenClaims). */
export async function signSessionToken(config: AuthConfig, user: UserRow, session: SessionRow) {
  const iat = Math.floor(Date.now() / 1000)
  const exp = iat + config.accessTokenTtlSeconds
  const token = await signAccessToken(
    {
      iss: issuer(config),
      sub: user.id,
      aud: 'authenticated',
      exp,
      iat,
      email: user.email ?? '',
      phone: user.phone ?? '',
      app_metadata: user.raw_app_meta_data,
      user_metadata: user.raw_user_meta_data,
      role: user.role || 'authenticated',
      aal: session.aal,
      amr: session.amr,
      session_id: session.id,
      is_anonymous: user.is_anonymous,
    },
    config.jwtSigning,
  )
  return { token, exp }
}

async function sessionResponse(
  ctx: AuthContext,
  db: Queryable,
  userId: string,
  session: SessionRow,
  refresh: string,
) {
  const user = await findUserById(db, userId)
  if (!user) throw authError('user_not_found')
  const { token, exp } = await signSessionToken(ctx.config, user, session)
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: ctx.config.accessTokenTtlSeconds,
    expires_at: exp,
    refresh_token: refresh,
    user: await userJson(db, user),
  }
}

export type SessionJson = Awaited<ReturnType<typeof sessionResponse>>

/** Starts a session (GoTrue IssueRefreshToken): session row, refresh token, access token. */
export async function issueSession(
  ctx: AuthContext,
  db: Queryable,
  userId: string,
  method: string,
) {
  const amr = JSON.stringify([{ method, timestamp: Math.floor(Date.now() / 1000) }])
  const { rows } = await db.query<SessionRow>(
    'insert into auth.sessions (user_id, amr) values ($1, $2::jsonb) returning *',
    [userId, amr],
  )
  const refresh = newRefreshToken()
  await db.query(
    'insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3)',
    [refresh, userId, rows[0].id],
  )
  await db.query('update auth.users set last_sign_in_at = now() where id = $1', [userId])
  return sessionResponse(ctx, db, userId, rows[0], refresh)
}

/**
 * The refresh_token grant with rotation and reuse detection (GoTrue RefreshTokenGrant):
 * a revoked token is accepted only if it is the parent of the active one (the client lost
 * the response) or within the reuse interval; otherwise the whole session is revoked.
 */
export async function refreshSession(ctx: AuthContext, token: string) {
  const outcome = await ctx.db.transaction(async (tx) => {
    const { rows } = await tx.query<RefreshTokenRow>(
      'select * from auth.refresh_tokens where token = $1 for update',
      [token],
    )
    const current = rows[0]
    if (!current) throw authError('refresh_token_not_found')
    const session = await loadSession(tx, current.session_id)
    if (!session) throw authError('refresh_token_not_found')
    let issued: string | undefined
    if (current.revoked) {
      const active = await tx.query<RefreshTokenRow>(
        'select * from auth.refresh_tokens where session_id = $1 and not revoked order by id desc limit 1',
        [session.id],
      )
      if (active.rows[0]?.parent === current.token) {
        issued = active.rows[0].token
      } else {
        const reuseUntil =
          new Date(current.updated_at).getTime() +
          ctx.config.refreshTokenReuseIntervalSeconds * 1000
        if (Date.now() > reuseUntil) {
          // Possible token theft: end the session, so every token of this family stops working.
          await tx.query('delete from auth.sessions where id = $1', [session.id])
          return { reused: true as const }
        }
      }
    }
    if (!issued) {
      issued = newRefreshToken()
      await tx.query(
        'update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1',
        [current.id],
      )
      await tx.query(
        'insert into auth.refresh_tokens (token, user_id, session_id, parent) values ($1, $2, $3, $4)',
        [issued, current.user_id, session.id, current.token],
      )
    }
    await tx.query(
      'update auth.sessions set refreshed_at = now(), updated_at = now() where id = $1',
      [session.id],
    )
    return {
      reused: false as const,
      body: await sessionResponse(ctx, tx, current.user_id, session, issued),
    }
  })
  // Committed on purpose before failing, like GoTrue's NewCommitWithError.
  if (outcome.reused) throw authError('refresh_token_already_used')
  return outcome.body
}

async function loadSession(db: Queryable, id: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>('select * from auth.sessions where id = $1', [id])
  return rows[0]
}

export interface Authenticated {
  claims: VerifiedClaims
  user: UserRow
  sessionId: string | undefined
}

/** Verifies the bearer access token of a user request and loads its user and session. */
export async function authenticate(ctx: AuthContext, request: Request): Promise<Authenticated> {
  const token = bearerToken(request)
  if (!token) throw authError('no_authorization')
  let claims: VerifiedClaims
  try {
    claims = await verifyToken(token)
  } catch (error) {
    const message = (error as Error).message
    throw errors.badJwt(
      /exp/.test(message) ? 'token has invalid claims: token is expired' : message,
    )
  }
  if (!claims.sub) throw errors.badJwt('invalid claim: missing sub claim')
  const user = await findUserById(ctx.db, claims.sub)
  if (!user) throw new AuthError(403, 'user_not_found', 'User from sub claim in JWT does not exist')
  const sessionId = typeof claims.session_id === 'string' ? claims.session_id : undefined
  if (sessionId && !(await loadSession(ctx.db, sessionId))) throw authError('session_not_found')
  return { claims, user, sessionId }
}

/** Ends sessions for POST /logout: global (all), local (this one) or others. */
export async function endSessions(
  db: Queryable,
  userId: string,
  sessionId: string | undefined,
  scope: string,
) {
  if (scope === 'local') {
    await db.query('delete from auth.sessions where id = $1', [sessionId])
  } else if (scope === 'others') {
    await db.query('delete from auth.sessions where user_id = $1 and id is distinct from $2', [
      userId,
      sessionId,
    ])
  } else {
    await db.query('delete from auth.sessions where user_id = $1', [userId])
  }
}
