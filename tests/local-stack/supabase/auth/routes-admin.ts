import {
  bearerToken,
  json,
  objectField,
  readJsonObject,
  type Route,
  route,
  type RouteHandler,
  stringField,
} from '../http'
import { verifyToken } from '../keys'
import type { AuthContext } from './context'
import { authError, errors } from './errors'
import { isWeakPassword } from './passwords'
import { generateLink } from './routes-admin-links'
import { requireEmail } from './routes-signup'
import { mergeMetadata } from './routes-user'
import {
  confirmEmail,
  createUser,
  findUserByEmail,
  findUserById,
  reloadUserJson,
  userJson,
  type UserRow,
} from './users'

/** Admin endpoints need a service_role JWT as the Bearer token (GoTrue requireAdmin). */
async function requireAdmin(request: Request) {
  const token = bearerToken(request)
  if (!token) throw authError('no_authorization')
  let role: unknown
  try {
    role = (await verifyToken(token)).role
  } catch (error) {
    throw errors.badJwt((error as Error).message)
  }
  if (role !== 'service_role' && role !== 'supabase_admin') throw authError('not_admin')
}

async function requireUser(ctx: AuthContext, id: string): Promise<UserRow> {
  const user = await findUserById(ctx.db, id)
  if (!user) throw authError('user_not_found')
  return user
}

/** POST /admin/users: create a user, confirmed or not, without sending mail. */
async function createUserRoute(ctx: AuthContext, request: Request) {
  const body = await readJsonObject(request)
  const email = requireEmail(body, 'Unable to validate email address: invalid format')
  const password = stringField(body, 'password')
  if (password !== undefined && isWeakPassword(password)) throw errors.weakPassword()
  const user = await ctx.db.transaction(async (tx) => {
    if (await findUserByEmail(tx, email)) throw authError('email_exists')
    const created = await createUser(tx, {
      email,
      password,
      emailConfirmed: body.email_confirm === true,
      userMetadata: objectField(body, 'user_metadata'),
      appMetadata: objectField(body, 'app_metadata'),
    })
    return userJson(tx, created)
  })
  return json(user)
}

/** GET /admin/users?page=&per_page= → {users, aud}, newest first. */
async function listUsers(ctx: AuthContext, request: Request) {
  const query = new URL(request.url).searchParams
  const page = Math.max(1, Number(query.get('page')) || 1)
  const perPage = Math.min(1000, Math.max(1, Number(query.get('per_page')) || 50))
  const { rows } = await ctx.db.query<UserRow>(
    'select * from auth.users order by created_at desc, id limit $1 offset $2',
    [perPage, (page - 1) * perPage],
  )
  const users = await Promise.all(rows.map((row) => userJson(ctx.db, row)))
  return json({ users, aud: 'authenticated' })
}

/** PUT /admin/users/{id}: email (no confirmation needed), password, email_confirm, metadata. */
async function updateUserRoute(ctx: AuthContext, request: Request, id: string) {
  const user = await requireUser(ctx, id)
  const body = await readJsonObject(request)
  const result = await ctx.db.transaction(async (tx) => {
    if (typeof body.email === 'string') {
      const email = requireEmail(body, 'Unable to validate email address: invalid format')
      const taken = await findUserByEmail(tx, email)
      if (taken && taken.id !== user.id) throw authError('email_exists')
      await tx.query('update auth.users set email = $2, updated_at = now() where id = $1', [
        user.id,
        email,
      ])
      await tx.query(
        `update auth.identities set identity_data = identity_data || jsonb_build_object('email', $2::text)
         where user_id = $1 and provider = 'email'`,
        [user.id, email],
      )
    }
    if (body.password !== undefined)
      throw errors.validation("an admin's password update is not emulated by the local stand-in")
    if (body.email_confirm === true) await confirmEmail(tx, user.id)
    const userMetadata = objectField(body, 'user_metadata')
    if (userMetadata) await mergeMetadata(tx, user.id, 'raw_user_meta_data', userMetadata)
    const appMetadata = objectField(body, 'app_metadata')
    if (appMetadata) await mergeMetadata(tx, user.id, 'raw_app_meta_data', appMetadata)
    return reloadUserJson(tx, user.id)
  })
  return json(result)
}

export function adminRoutes(ctx: AuthContext): Route[] {
  const admin = (method: string, path: string, handler: RouteHandler) =>
    route(method, path, async (request, params) => {
      await requireAdmin(request)
      return handler(request, params)
    })
  return [
    admin('POST', '/admin/users', (request) => createUserRoute(ctx, request)),
    admin('GET', '/admin/users', (request) => listUsers(ctx, request)),
    admin('GET', '/admin/users/:id', async (_request, { id }) =>
      json(await userJson(ctx.db, await requireUser(ctx, id))),
    ),
    admin('PUT', '/admin/users/:id', (request, { id }) => updateUserRoute(ctx, request, id)),
    admin('DELETE', '/admin/users/:id', async (_request, { id }) => {
      await requireUser(ctx, id)
      await ctx.db.query('delete from auth.users where id = $1', [id])
      return json({})
    }),
    admin('POST', '/admin/generate_link', (request) => generateLink(ctx, request)),
  ]
}
