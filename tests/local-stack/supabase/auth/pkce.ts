import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'

import type { Queryable } from '../../database'
import { stringField } from '../http'
import type { AuthContext } from './context'
import { authError, errors } from './errors'
import { issueSession } from './sessions'

export interface CodeChallenge {
  challenge: string
  method: 's256' | 'plain'
}

/** Reads code_challenge/code_challenge_method; undefined for the implicit flow (GoTrue validatePKCEParams). */
export function readCodeChallenge(source: Record<string, unknown>): CodeChallenge | undefined {
  const challenge = stringField(source, 'code_challenge') ?? ''
  const method = (stringField(source, 'code_challenge_method') ?? '').toLowerCase()
  if (!challenge && !method) return undefined
  if (!challenge || !method) {
    throw errors.validation('PKCE flow requires code_challenge_method and code_challenge')
  }
  if (method !== 's256' && method !== 'plain')
    throw errors.validation(`unsupported code_challenge method "${method}"`)
  if (challenge.length < 43 || challenge.length > 128) {
    throw errors.validation('code challenge has to be between 43 and 128 characters')
  }
  return { challenge, method }
}

/** Starts a PKCE flow (auth.flow_state); the auth code is handed out once the user proves who they are. */
export async function createFlowState(
  db: Queryable,
  input: {
    userId?: string
    /** Absent for an implicit-flow OAuth sign-in, whose row only carries the redirect. */
    challenge?: CodeChallenge
    providerType: string
    authenticationMethod: string
    redirectTo?: string
  },
) {
  const { rows } = await db.query<{ id: string; auth_code: string }>(
    `insert into auth.flow_state (user_id, auth_code, code_challenge_method, code_challenge, provider_type,
       authentication_method, redirect_to)
     values ($1, $2, $3, $4, $5, $6, $7) returning id, auth_code`,
    [
      input.userId ?? null,
      randomUUID(),
      input.challenge?.method ?? null,
      input.challenge?.challenge ?? null,
      input.providerType,
      input.authenticationMethod,
      input.redirectTo ?? null,
    ],
  )
  return rows[0]
}

/** Hands out the auth code of the user's latest flow of a method (GoTrue issueAuthCode). */
export async function issueAuthCode(db: Queryable, userId: string, authenticationMethod: string) {
  const { rows } = await db.query<{ auth_code: string }>(
    `update auth.flow_state set auth_code_issued_at = now(), updated_at = now()
     where id = (select id from auth.flow_state where user_id = $1 and authentication_method = $2
                 order by created_at desc limit 1)
     returning auth_code`,
    [userId, authenticationMethod],
  )
  return rows[0]?.auth_code
}

function challengeMatches(method: string | null, challenge: string | null, verifier: string) {
  if (!method || !challenge) return false
  const expected =
    method === 's256' ? createHash('sha256').update(verifier).digest('base64url') : verifier
  const a = Buffer.from(expected)
  const b = Buffer.from(challenge)
  return a.length === b.length && timingSafeEqual(a, b)
}

interface FlowRow {
  id: string
  user_id: string | null
  code_challenge_method: string | null
  code_challenge: string | null
  authentication_method: string
  expired: boolean
}

/** grant_type=pkce: checks the flow and verifier, deletes the flow (a code works once), starts a session. */
export async function exchangeAuthCode(ctx: AuthContext, authCode: string, verifier: string) {
  if (!authCode || !verifier) {
    throw errors.validation('invalid request: both auth code and code verifier should be non-empty')
  }
  return ctx.db.transaction(async (tx) => {
    const { rows } = await tx.query<FlowRow>(
      `select *, coalesce(auth_code_issued_at, created_at) < now() - make_interval(secs => $2) as expired
       from auth.flow_state where auth_code = $1 for update`,
      [authCode, ctx.config.flowStateTtlSeconds],
    )
    const flow = rows[0]
    if (!flow || !flow.user_id) throw authError('flow_state_not_found')
    if (flow.expired) throw authError('flow_state_expired')
    if (!challengeMatches(flow.code_challenge_method, flow.code_challenge, verifier))
      throw authError('bad_code_verifier')
    await tx.query('delete from auth.flow_state where id = $1', [flow.id])
    return issueSession(ctx, tx, flow.user_id, flow.authentication_method)
  })
}
