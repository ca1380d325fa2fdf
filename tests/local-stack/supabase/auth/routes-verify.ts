import type { Queryable } from '../../database'
import { json, readJsonObject, redirect, type Route, route, stringField } from '../http'
import type { AuthContext } from './context'
import { AuthError, errors } from './errors'
import {
  deleteTokens,
  EMAIL_OTP_TYPES,
  type EmailOtpType,
  findByEmailOtp,
  findByTokenHash,
  type MatchedToken,
} from './otp'
import { issueAuthCode } from './pkce'
import { resolveRedirect } from './redirects'
import { issueSession } from './sessions'
import { confirmEmail, upsertIdentity } from './users'

const SINGLE_CONFIRMATION =
  'Confirmation link accepted. Please proceed to confirm link sent to the other email'

/** Flow-state authentication method per verification type (GoTrue ParseAuthenticationMethod). */
const AUTH_METHOD: Record<MatchedToken['type'], string> = {
  signup: 'email/signup',
  invite: 'invite',
  magiclink: 'magiclink',
  recovery: 'recovery',
  email_change: 'email_change',
}

/** GoTrue oauthErrorMap: HTTP status → OAuth `error`. */
const OAUTH_ERROR: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized_client',
  403: 'access_denied',
  500: 'server_error',
  503: 'temporarily_unavailable',
}

function parseType(value: string | undefined): EmailOtpType {
  if (!value) throw errors.validation('Verify requires a verification type')
  if (!(EMAIL_OTP_TYPES as readonly string[]).includes(value))
    throw errors.validation('Invalid email verification type')
  return value as EmailOtpType
}

/**
 * Applies a verified token: confirms the email, consumes the token, or moves an email
 * change on. Returns false when an email change still waits for its second confirmation.
 */
async function applyToken(
  ctx: AuthContext,
  tx: Queryable,
  matched: MatchedToken,
): Promise<boolean> {
  const { user } = matched
  if (matched.type === 'email_change') {
    if (ctx.config.secureEmailChange && user.email && user.email_change_confirm_status === 0) {
      await tx.query('update auth.users set email_change_confirm_status = 1 where id = $1', [
        user.id,
      ])
      await deleteTokens(tx, user.id, [matched.tokenType])
      return false
    }
    const { rows } = await tx.query<{ email: string }>(
      `update auth.users set email = email_change, email_change = null, email_change_confirm_status = 0,
         email_change_sent_at = null, email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now()
       where id = $1 returning email`,
      [user.id],
    )
    await upsertIdentity(tx, user.id, 'email', user.id, {
      sub: user.id,
      email: rows[0].email,
      email_verified: true,
    })
    await deleteTokens(tx, user.id, ['email_change_token_new', 'email_change_token_current'])
    return true
  }
  await deleteTokens(tx, user.id, [matched.tokenType])
  await confirmEmail(tx, user.id)
  return true
}

/** POST /verify: `token_hash` or `email` + `token` → a session (or the email-change interim message). */
async function verifyPost(ctx: AuthContext, request: Request) {
  const body = await readJsonObject(request)
  const type = parseType(stringField(body, 'type'))
  const token = stringField(body, 'token') ?? ''
  const tokenHash = stringField(body, 'token_hash') ?? ''
  const email = stringField(body, 'email') ?? ''
  if ((!token && !tokenHash) || (token && tokenHash)) {
    throw errors.validation('Verify requires either a token or a token hash')
  }
  if (token && !email)
    throw errors.validation('Only an email address or phone number should be provided on verify')
  const ttl = ctx.config.otpTtlSeconds
  const result = await ctx.db.transaction(async (tx) => {
    const matched = tokenHash
      ? await findByTokenHash(tx, type, tokenHash, ttl)
      : await findByEmailOtp(tx, type, email, token, ttl)
    if (!(await applyToken(ctx, tx, matched))) return undefined
    return issueSession(ctx, tx, matched.user.id, 'otp')
  })
  if (!result) return json({ msg: SINGLE_CONFIRMATION, code: '200' })
  return json(result)
}

function errorRedirect(target: string, error: AuthError) {
  const url = new URL(target)
  const params = new URLSearchParams()
  if (OAUTH_ERROR[error.status]) params.set('error', OAUTH_ERROR[error.status])
  params.set('error_code', error.code)
  params.set('error_description', error.message)
  for (const [key, value] of params) url.searchParams.set(key, value)
  params.set('sb', '')
  url.hash = params.toString()
  return redirect(url.toString(), 303)
}

/** GET /verify (the link in GoTrue's own emails): 303 to redirect_to with ?code= (PKCE only). */
async function verifyGet(ctx: AuthContext, request: Request) {
  const query = new URL(request.url).searchParams
  const type = parseType(query.get('type') ?? undefined)
  const token = query.get('token') ?? ''
  if (!token) throw errors.validation('Verify requires a token or a token hash')
  // The product's links are PKCE; the implicit flow (tokens in the fragment) is not emulated.
  if (!token.startsWith('pkce_')) throw errors.validation('the local stand-in supports only PKCE')
  const target = resolveRedirect(ctx.config, query.get('redirect_to'))
  try {
    const code = await ctx.db.transaction(async (tx) => {
      const matched = await findByTokenHash(tx, type, token, ctx.config.otpTtlSeconds)
      if (!(await applyToken(ctx, tx, matched))) return undefined
      const issued = await issueAuthCode(tx, matched.user.id, AUTH_METHOD[matched.type])
      if (!issued)
        throw new AuthError(422, 'flow_state_not_found', 'No associated flow state found.')
      return issued
    })
    const url = new URL(target)
    if (code) url.searchParams.set('code', code)
    else {
      url.searchParams.set('message', SINGLE_CONFIRMATION)
      url.hash = new URLSearchParams({ message: SINGLE_CONFIRMATION, sb: '' }).toString()
    }
    return redirect(url.toString(), 303)
  } catch (error) {
    if (error instanceof AuthError) return errorRedirect(target, error)
    throw error
  }
}

export function verifyRoutes(ctx: AuthContext): Route[] {
  return [
    route('POST', '/verify', (request) => verifyPost(ctx, request)),
    route('GET', '/verify', (request) => verifyGet(ctx, request)),
  ]
}
