import { createHash, randomInt } from 'node:crypto'

import type { Queryable } from '../../database'
import { authError } from './errors'
import { findUserById, normalizeEmail, type UserRow } from './users'

export type TokenType =
  'confirmation_token' | 'recovery_token' | 'email_change_token_new' | 'email_change_token_current'

/** The email verification types of POST/GET /verify. */
export const EMAIL_OTP_TYPES = [
  'signup',
  'invite',
  'magiclink',
  'recovery',
  'email_change',
  'email',
] as const
export type EmailOtpType = (typeof EMAIL_OTP_TYPES)[number]

const TOKEN_TYPES: Record<EmailOtpType, TokenType[]> = {
  signup: ['confirmation_token'],
  invite: ['confirmation_token'],
  magiclink: ['recovery_token'],
  recovery: ['recovery_token'],
  email: ['confirmation_token', 'recovery_token'],
  email_change: ['email_change_token_new', 'email_change_token_current'],
}

const SENT_AT_COLUMN: Record<TokenType, string> = {
  confirmation_token: 'confirmation_sent_at',
  recovery_token: 'recovery_sent_at',
  email_change_token_new: 'email_change_sent_at',
  email_change_token_current: 'email_change_sent_at',
}

/** GoTrue's crypto.GenerateTokenHash: hex(sha224(email + otp)). */
export function generateTokenHash(email: string, otp: string) {
  return createHash('sha224')
    .update(email + otp)
    .digest('hex')
}

/**
 * Stores a new one-time token of a type for a user (replacing the previous one) and returns
 * the 6-digit OTP and the token hash that email links carry ("pkce_" prefixed for PKCE flows).
 */
export async function issueOneTimeToken(
  db: Queryable,
  input: { userId: string; type: TokenType; email: string; pkce: boolean },
) {
  const otp = String(randomInt(0, 1_000_000)).padStart(6, '0')
  const email = normalizeEmail(input.email)
  const tokenHash = (input.pkce ? 'pkce_' : '') + generateTokenHash(email, otp)
  await db.query(
    `insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to) values ($1, $2, $3, $4)
     on conflict (user_id, token_type) do update
       set token_hash = excluded.token_hash, relates_to = excluded.relates_to, created_at = now()`,
    [input.userId, input.type, tokenHash, email],
  )
  await db.query(`update auth.users set ${SENT_AT_COLUMN[input.type]} = now() where id = $1`, [
    input.userId,
  ])
  return { otp, tokenHash }
}

export interface MatchedToken {
  user: UserRow
  tokenType: TokenType
  tokenHash: string
  relatesTo: string
  /** The concrete type: `email` resolves to signup or magiclink, as in GoTrue. */
  type: Exclude<EmailOtpType, 'email'>
}

interface TokenRow {
  user_id: string
  token_type: TokenType
  token_hash: string
  relates_to: string
  expired: boolean
}

async function firstValid(db: Queryable, rows: TokenRow[], type: EmailOtpType, message: string) {
  const row = rows[0]
  if (!row || row.expired) throw authError('otp_expired', message)
  const user = await findUserById(db, row.user_id)
  if (!user) throw authError('otp_expired', message)
  const resolved =
    type === 'email'
      ? row.token_type === 'recovery_token'
        ? 'magiclink'
        : 'signup'
      : (type as MatchedToken['type'])
  return {
    user,
    tokenType: row.token_type,
    tokenHash: row.token_hash,
    relatesTo: row.relates_to,
    type: resolved,
  }
}

/** Finds the token of an email link (`token_hash`); expired or unknown → 403 otp_expired. */
export async function findByTokenHash(
  db: Queryable,
  type: EmailOtpType,
  tokenHash: string,
  ttlSeconds: number,
) {
  const { rows } = await db.query<TokenRow>(
    `select *, created_at < now() - make_interval(secs => $3) as expired from auth.one_time_tokens
     where token_hash = $1 and token_type = any($2::text[]) order by created_at desc limit 1`,
    [tokenHash, TOKEN_TYPES[type], ttlSeconds],
  )
  return firstValid(db, rows, type, 'Email link is invalid or has expired')
}

/** Finds the token for an email + 6-digit OTP pair; wrong or expired → 403 otp_expired. */
export async function findByEmailOtp(
  db: Queryable,
  type: EmailOtpType,
  email: string,
  otp: string,
  ttlSeconds: number,
) {
  const hash = generateTokenHash(normalizeEmail(email), otp)
  const { rows } = await db.query<TokenRow>(
    `select *, created_at < now() - make_interval(secs => $4) as expired from auth.one_time_tokens
     where token_hash in ($1, 'pkce_' || $1) and relates_to = $2 and token_type = any($3::text[])
     order by created_at desc limit 1`,
    [hash, normalizeEmail(email), TOKEN_TYPES[type], ttlSeconds],
  )
  return firstValid(db, rows, type, 'Token has expired or is invalid')
}

export async function deleteTokens(db: Queryable, userId: string, types: TokenType[]) {
  await db.query(
    'delete from auth.one_time_tokens where user_id = $1 and token_type = any($2::text[])',
    [userId, types],
  )
}
