import type { Queryable } from '../../database'
import { json, objectField, readJsonObject, route, stringField, type Route } from '../http'
import type { AuthContext } from './context'
import { startEmailChange } from './emails'
import { errors } from './errors'
import { isWeakPassword, verifyPassword } from './passwords'
import { readCodeChallenge } from './pkce'
import { authenticate, endSessions } from './sessions'
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
  if (await verifyPassword(password, current)) throw errors.samePassword()
  await setPassword(db, userId, password)
}

async function getUser(ctx: AuthContext, request: Request) {
  const { user } = await authenticate(ctx, request)
  return json(await userJson(ctx.db, user))
}

/** PUT /user: user_metadata (`data`), password, or email (confirmation mails to both addresses). */
async function updateUser(ctx: AuthContext, request: Request) {
  const { user } = await authenticate(ctx, request)
  const body = await readJsonObject(request)
  const redirectTo = new URL(request.url).searchParams.get('redirect_to')
  const requestedEmail = stringField(body, 'email')
  const password = stringField(body, 'password')
  const data = objectField(body, 'data')
  const challenge = readCodeChallenge(body)
  const result = await ctx.db.transaction(async (tx) => {
    if (data) await mergeMetadata(tx, user.id, 'raw_user_meta_data', data)
    if (password !== undefined) await changePassword(tx, user.id, user.encrypted_password, password)
    if (requestedEmail !== undefined) {
      const email = normalizeEmail(requestedEmail)
      if (!isValidEmail(email))
        throw errors.validation('Unable to validate email address: invalid format')
      if (email !== user.email) {
        const taken = await findUserByEmail(tx, email)
        if (taken && taken.id !== user.id) throw errors.emailExists()
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
    route('POST', '/logout', (request) => logout(ctx, request)),
  ]
}
