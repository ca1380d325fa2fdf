import { randomInt } from 'node:crypto'

import type { Queryable } from '../../database'
import { json, objectField, readJsonObject, type Route, route, stringField } from '../http'
import type { AuthContext } from './context'
import { sendReauthenticationMail, startEmailChange } from './emails'
import { AuthError, authError, errors } from './errors'
import { generateTokenHash } from './otp'
import { isWeakPassword, verifyPassword } from './passwords'
import { readCodeChallenge } from './pkce'
import { checkMailFrequency } from './rate-limits'
import { authenticate, type Authenticated, endSessions } from './sessions'
import {
  findUserByEmail,
  isValidEmail,
  normalizeEmail,
  reloadUserJson,
  setPassword,
  userJson,
} from './users'

/** Merges metadata like GoTrue's UpdateUserMetaData: keys set to null are removed. */
export async function mergeMetadata(
  db: Queryable,
  userId: string,
  column: 'raw_user_meta_data' | 'raw_app_meta_data',
  patch: Record<string, unknown>,
) {
  const nulls = Object.keys(patch).filter((key) => patch[key] === null)
  const values = Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== null))
  await db.query(
    `update auth.users set ${column} = (${column} || $2::jsonb) - $3::text[], updated_at = now() where id = $1`,
    [userId, JSON.stringify(values), nulls],
  )
}

/** Checks and sets a new password: weak → weak_password, unchanged → same_password. */
export async function changePassword(
  db: Queryable,
  userId: string,
  current: string | null,
  password: string,
) {
  if (isWeakPassword(password)) throw errors.weakPassword()
  if (await verifyPassword(password, current)) throw authError('same_password')
  await setPassword(db, userId, password)
}

/** GoTrue's window in which a session may change the password without a nonce. */
const RECENT_SIGN_IN_MS = 24 * 60 * 60 * 1000

interface ReauthenticationRow {
  email: string | null
  email_confirmed_at: Date | null
  reauthentication_token: string
  reauthentication_sent_at: Date | null
}

async function reauthenticationState(db: Queryable, userId: string) {
  const { rows } = await db.query<ReauthenticationRow>(
    'select email, email_confirmed_at, reauthentication_token, reauthentication_sent_at from auth.users where id = $1',
    [userId],
  )
  return rows[0]
}

/** Secure password change: a session older than 24 hours must send the mailed nonce. */
async function requireRecentSignInOrNonce(
  ctx: AuthContext,
  db: Queryable,
  auth: Authenticated,
  nonce: string | undefined,
) {
  if (!ctx.config.securePasswordChange) return
  const { rows } = await db.query<{ created_at: Date }>(
    'select created_at from auth.sessions where id = $1',
    [auth.sessionId ?? null],
  )
  const session = rows[0]
  if (session && Date.now() <= new Date(session.created_at).getTime() + RECENT_SIGN_IN_MS) return
  if (!nonce) throw authError('reauthentication_needed')
  const state = await reauthenticationState(db, auth.user.id)
  const sentAt = state?.reauthentication_sent_at
  const valid =
    state?.email &&
    state.reauthentication_token &&
    sentAt &&
    Date.now() <= new Date(sentAt).getTime() + ctx.config.otpTtlSeconds * 1000 &&
    generateTokenHash(state.email, nonce) === state.reauthentication_token
  if (!valid) throw authError('reauthentication_not_valid')
  await db.query(
    `update auth.users set reauthentication_token = '', reauthentication_sent_at = null where id = $1`,
    [auth.user.id],
  )
}

/** GoTrue's Session.IsRecovery: a session opened by an emailed link or code. */
const RECOVERY_METHODS = new Set(['otp', 'magiclink', 'recovery'])

async function isRecoverySession(db: Queryable, sessionId: string | undefined) {
  if (!sessionId) return false
  const { rows } = await db.query<{ amr: { method?: unknown }[] | null }>(
    'select amr from auth.sessions where id = $1',
    [sessionId],
  )
  return (rows[0]?.amr ?? []).some(
    (entry) => typeof entry.method === 'string' && RECOVERY_METHODS.has(entry.method),
  )
}

/** "Require current password", unless the session was opened by an emailed link or code. */
async function requireCurrentPassword(
  ctx: AuthContext,
  db: Queryable,
  auth: Authenticated,
  currentPassword: string | undefined,
) {
  if (!ctx.config.requireCurrentPassword || !auth.user.encrypted_password) return
  if (await isRecoverySession(db, auth.sessionId)) return
  if (!currentPassword) throw authError('current_password_required')
  if (!(await verifyPassword(currentPassword, auth.user.encrypted_password)))
    throw authError('current_password_invalid')
}

/** POST /reauthenticate: mails a 6-digit nonce to the user's confirmed email (once a minute). */
async function reauthenticate(ctx: AuthContext, request: Request) {
  const { user } = await authenticate(ctx, request)
  const state = await reauthenticationState(ctx.db, user.id)
  if (!state?.email) {
    throw new AuthError(
      422,
      'validation_failed',
      'Reauthentication requires the user to have an email or a phone number',
    )
  }
  if (!state.email_confirmed_at) throw authError('email_not_confirmed')
  checkMailFrequency(state.reauthentication_sent_at, ctx.config.mailMaxFrequencySeconds)
  ctx.limits.mailSent()
  const otp = String(randomInt(0, 1_000_000)).padStart(6, '0')
  await ctx.db.transaction(async (tx) => {
    await tx.query(
      'update auth.users set reauthentication_token = $2, reauthentication_sent_at = now() where id = $1',
      [user.id, generateTokenHash(state.email ?? '', otp)],
    )
    await sendReauthenticationMail(ctx, tx, { user: { ...user, email: state.email }, otp })
  })
  return json({})
}

async function getUser(ctx: AuthContext, request: Request) {
  const { user } = await authenticate(ctx, request)
  return json(await userJson(ctx.db, user))
}

/** PUT /user: user_metadata (`data`), password, or email (confirmation mails to both addresses). */
async function updateUser(ctx: AuthContext, request: Request) {
  const auth = await authenticate(ctx, request)
  const { user } = auth
  const body = await readJsonObject(request)
  const redirectTo = new URL(request.url).searchParams.get('redirect_to')
  const requestedEmail = stringField(body, 'email')
  const password = stringField(body, 'password')
  const nonce = stringField(body, 'nonce')
  const currentPassword = stringField(body, 'current_password')
  const data = objectField(body, 'data')
  const challenge = readCodeChallenge(body)
  if (password !== undefined) {
    if (isWeakPassword(password)) throw errors.weakPassword()
    await requireRecentSignInOrNonce(ctx, ctx.db, auth, nonce)
    await requireCurrentPassword(ctx, ctx.db, auth, currentPassword)
  }
  const result = await ctx.db.transaction(async (tx) => {
    if (data) await mergeMetadata(tx, user.id, 'raw_user_meta_data', data)
    if (password !== undefined) {
      await changePassword(tx, user.id, user.encrypted_password, password)
      // GoTrue's models.User.UpdatePassword: every pending link and code, and every other
      // session, "because password change may mean the user no longer trusts the actions
      // performed by the previous password".
      await tx.query(
        `update auth.users set confirmation_sent_at = null, recovery_sent_at = null,
           email_change_sent_at = null, reauthentication_token = '', reauthentication_sent_at = null
         where id = $1`,
        [user.id],
      )
      await tx.query('delete from auth.one_time_tokens where user_id = $1', [user.id])
      await endSessions(tx, user.id, auth.sessionId, 'others')
    }
    if (requestedEmail !== undefined) {
      const email = normalizeEmail(requestedEmail)
      if (!isValidEmail(email))
        throw errors.validation('Unable to validate email address: invalid format')
      if (email !== user.email) {
        const taken = await findUserByEmail(tx, email)
        if (taken && taken.id !== user.id) throw authError('email_exists')
        await startEmailChange(ctx, tx, { user, newEmail: email, redirectTo, challenge })
      }
    }
    return reloadUserJson(tx, user.id)
  })
  return json(result)
}

/** POST /logout?scope=global|local|others → 204; refresh tokens of those sessions stop working. */
async function logout(ctx: AuthContext, request: Request) {
  const { user, sessionId } = await authenticate(ctx, request)
  const scope = new URL(request.url).searchParams.get('scope') ?? 'global'
  if (!['global', 'local', 'others'].includes(scope)) {
    throw errors.validation(`Unsupported logout scope "${scope}"`)
  }
  await endSessions(ctx.db, user.id, sessionId, scope)
  return new Response(null, { status: 204 })
}

export function userRoutes(ctx: AuthContext): Route[] {
  return [
    route('GET', '/user', (request) => getUser(ctx, request)),
    route('PUT', '/user', (request) => updateUser(ctx, request)),
    route('GET', '/reauthenticate', (request) => reauthenticate(ctx, request)),
    route('POST', '/logout', (request) => logout(ctx, request)),
  ]
}
