import { randomUUID } from 'node:crypto'

import type { Queryable } from '../../database'
import { hashPassword } from './passwords'

/** A row of auth.users (the columns the emulator uses). */
export interface UserRow {
  id: string
  aud: string
  role: string
  email: string | null
  encrypted_password: string | null
  email_confirmed_at: Date | null
  invited_at: Date | null
  confirmation_sent_at: Date | null
  recovery_sent_at: Date | null
  email_change: string | null
  email_change_sent_at: Date | null
  email_change_confirm_status: number
  last_sign_in_at: Date | null
  raw_app_meta_data: Record<string, unknown>
  raw_user_meta_data: Record<string, unknown>
  created_at: Date
  updated_at: Date
  phone: string | null
  phone_confirmed_at: Date | null
  banned_until: Date | null
  is_anonymous: boolean
}

export function normalizeEmail(email: string) {
  return email.trim().toLowerCase()
}

/** GoTrue-ish email check: something@something.tld, no spaces. */
export function isValidEmail(email: string) {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 255
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined
  const { rows } = await db.query<UserRow>('select * from auth.users where id = $1', [id])
  return rows[0]
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>('select * from auth.users where lower(email) = $1', [
    normalizeEmail(email),
  ])
  return rows[0]
}

export interface NewUser {
  email: string
  password?: string
  emailConfirmed: boolean
  userMetadata?: Record<string, unknown>
  appMetadata?: Record<string, unknown>
  provider?: string
  invited?: boolean
}

/** Inserts a user and its email identity, as GoTrue's signupNewUser + createNewIdentity do. */
export async function createUser(db: Queryable, input: NewUser): Promise<UserRow> {
  const id = randomUUID()
  const email = normalizeEmail(input.email)
  const provider = input.provider ?? 'email'
  const appMetadata = { ...input.appMetadata, provider, providers: [provider] }
  const encrypted = input.password ? await hashPassword(input.password) : null
  const { rows } = await db.query<UserRow>(
    `insert into auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, invited_at,
       raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
     values ($1, 'authenticated', 'authenticated', $2, $3, case when $4 then now() end,
       case when $5 then now() end, $6, $7, now(), now())
     returning *`,
    [
      id,
      email,
      encrypted,
      input.emailConfirmed,
      input.invited ?? false,
      JSON.stringify(appMetadata),
      JSON.stringify(input.userMetadata ?? {}),
    ],
  )
  if (provider === 'email') {
    await upsertIdentity(db, id, 'email', id, {
      ...input.userMetadata,
      sub: id,
      email,
      email_verified: input.emailConfirmed,
      phone_verified: false,
    })
  }
  return rows[0]
}

export async function upsertIdentity(
  db: Queryable,
  userId: string,
  provider: string,
  providerId: string,
  data: Record<string, unknown>,
) {
  await db.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at)
     values ($1, $2, $3::jsonb, $4, now())
     on conflict (provider_id, provider) do update
       set identity_data = auth.identities.identity_data || excluded.identity_data,
           last_sign_in_at = now(), updated_at = now()`,
    [providerId, userId, JSON.stringify(data), provider],
  )
}

/** Adds a provider to app_metadata.providers (GoTrue's UpdateAppMetaDataProviders). */
export async function addProvider(db: Queryable, userId: string, provider: string) {
  await db.query(
    `update auth.users set raw_app_meta_data = jsonb_set(raw_app_meta_data, '{providers}',
       (select coalesce(jsonb_agg(distinct p), '[]'::jsonb) from (
          select jsonb_array_elements_text(coalesce(raw_app_meta_data -> 'providers', '[]'::jsonb)) as p
          union select $2) providers)),
       updated_at = now()
     where id = $1`,
    [userId, provider],
  )
}

export async function setPassword(db: Queryable, userId: string, password: string) {
  await db.query(
    'update auth.users set encrypted_password = $2, updated_at = now() where id = $1',
    [userId, await hashPassword(password)],
  )
}

/** Marks the email confirmed (GoTrue's user.Confirm) and the email identity verified. */
export async function confirmEmail(db: Queryable, userId: string) {
  await db.query(
    'update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() where id = $1',
    [userId],
  )
  await db.query(
    `update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = now()
     where user_id = $1 and provider = 'email'`,
    [userId],
  )
}

function iso(value: Date | null | undefined) {
  return value ? new Date(value).toISOString() : undefined
}

/** The User JSON GoTrue sends (models.User tags; absent optional fields are omitted). */
export async function userJson(db: Queryable, user: UserRow) {
  const { rows } = await db.query<{ identity: Record<string, unknown> }>(
    `select json_strip_nulls(json_build_object('identity_id', id, 'id', provider_id,
       'user_id', user_id, 'identity_data', identity_data, 'provider', provider, 'email', email,
       'last_sign_in_at', last_sign_in_at, 'created_at', created_at, 'updated_at', updated_at))
       as identity
     from auth.identities where user_id = $1 order by created_at`,
    [user.id],
  )
  const confirmedAt = user.email_confirmed_at ?? user.phone_confirmed_at
  const body: Record<string, unknown> = {
    id: user.id,
    aud: user.aud,
    role: user.role,
    email: user.email ?? '',
    email_confirmed_at: iso(user.email_confirmed_at),
    invited_at: iso(user.invited_at),
    phone: user.phone ?? '',
    phone_confirmed_at: iso(user.phone_confirmed_at),
    confirmation_sent_at: iso(user.confirmation_sent_at),
    confirmed_at: iso(confirmedAt),
    recovery_sent_at: iso(user.recovery_sent_at),
    new_email: user.email_change || undefined,
    email_change_sent_at: iso(user.email_change_sent_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data,
    user_metadata: user.raw_user_meta_data,
    identities: rows.map((row) => row.identity),
    created_at: iso(user.created_at),
    updated_at: iso(user.updated_at),
    banned_until: iso(user.banned_until),
    is_anonymous: user.is_anonymous,
  }
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key]
  return body
}

/** Loads a user by id and renders it; throws if it vanished. */
export async function reloadUserJson(db: Queryable, id: string) {
  const user = await findUserById(db, id)
  if (!user) throw new Error(`user ${id} vanished`)
  return userJson(db, user)
}
