import { json, readJsonObject, type Route, route, stringField } from '../http'
import type { AuthContext } from './context'
import { authError, errors, OAuthError } from './errors'
import { verifyPassword } from './passwords'
import { exchangeAuthCode } from './pkce'
import { issueSession, refreshSession } from './sessions'
import { findUserByEmail } from './users'

/** grant_type=password: wrong email or password → invalid_credentials; unconfirmed → email_not_confirmed. */
async function passwordGrant(ctx: AuthContext, body: Record<string, unknown>) {
  const email = stringField(body, 'email') ?? ''
  const password = stringField(body, 'password') ?? ''
  if (!email) throw errors.validation('missing email or phone')
  const user = await findUserByEmail(ctx.db, email)
  if (!user || !(await verifyPassword(password, user.encrypted_password)))
    throw authError('invalid_credentials')
  if (!user.email_confirmed_at) throw authError('email_not_confirmed')
  return ctx.db.transaction((tx) => issueSession(ctx, tx, user.id, 'password'))
}

/** POST /token?grant_type=password|refresh_token|pkce */
async function token(ctx: AuthContext, request: Request) {
  const grantType = new URL(request.url).searchParams.get('grant_type')
  const body = await readJsonObject(request)
  switch (grantType) {
    case 'password':
      return json(await passwordGrant(ctx, body))
    case 'refresh_token': {
      const refreshToken = stringField(body, 'refresh_token') ?? ''
      if (!refreshToken) throw new OAuthError(400, 'invalid_request', 'refresh_token required')
      return json(await refreshSession(ctx, refreshToken))
    }
    case 'pkce':
      return json(
        await exchangeAuthCode(
          ctx,
          stringField(body, 'auth_code') ?? '',
          stringField(body, 'code_verifier') ?? '',
        ),
      )
    default:
      throw new OAuthError(
        400,
        'unsupported_grant_type',
        `unsupported_grant_type: ${grantType ?? ''}`,
      )
  }
}

export function tokenRoutes(ctx: AuthContext): Route[] {
  return [route('POST', '/token', (request) => token(ctx, request))]
}
