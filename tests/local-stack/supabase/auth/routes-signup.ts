import { randomUUID } from 'node:crypto'

import { json, objectField, readJsonObject, type Route, route, stringField } from '../http'
import type { AuthContext } from './context'
import { sendAuthEmail } from './emails'
import { AuthError, errors } from './errors'
import { isWeakPassword } from './passwords'
import { readCodeChallenge } from './pkce'
import { createUser, findUserByEmail, isValidEmail, normalizeEmail, userJson } from './users'

/** Validates and normalises the email of a request body (GoTrue validateEmail). */
export function requireEmail(body: Record<string, unknown>, missingMessage: string) {
  const email = normalizeEmail(stringField(body, 'email') ?? '')
  if (!email) throw errors.validation(missingMessage)
  if (!isValidEmail(email))
    throw errors.validation('Unable to validate email address: invalid format')
  return email
}

function redirectParam(request: Request) {
  return new URL(request.url).searchParams.get('redirect_to')
}

/** A made-up user for a repeated sign-up, so responses do not reveal who is registered (GoTrue sanitizeUser). */
function obfuscatedUser(email: string, data: Record<string, unknown>) {
  const now = new Date().toISOString()
  return {
    id: randomUUID(),
    aud: 'authenticated',
    role: '',
    email,
    phone: '',
    confirmation_sent_at: now,
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: data,
    identities: [],
    created_at: now,
    updated_at: now,
    is_anonymous: false,
  }
}

/** POST /signup: email + password, confirmation by email (the User only, no session). */
async function signup(ctx: AuthContext, request: Request) {
  if (ctx.config.disableSignup)
    throw new AuthError(422, 'signup_disabled', 'Signups not allowed for this instance')
  const body = await readJsonObject(request)
  const email = requireEmail(body, 'To signup, please provide your email')
  const password = stringField(body, 'password') ?? ''
  if (!password) throw errors.validation('Signup requires a valid password', 422)
  if (isWeakPassword(password)) throw errors.weakPassword()
  const challenge = readCodeChallenge(body)
  const data = objectField(body, 'data') ?? {}
  const redirectTo = redirectParam(request)
  const result = await ctx.db.transaction(async (tx) => {
    const existing = await findUserByEmail(tx, email)
    if (existing?.email_confirmed_at) return { exists: true as const }
    // An unconfirmed existing user is not updated (identity unproven); the mail is sent again.
    const user =
      existing ??
      (await createUser(tx, { email, password, emailConfirmed: false, userMetadata: data }))
    await sendAuthEmail(ctx, tx, { user, kind: 'signup', redirectTo, challenge })
    const fresh = (await findUserByEmail(tx, email)) ?? user
    return { exists: false as const, user: await userJson(tx, fresh) }
  })
  if (result.exists) {
    if (ctx.config.obfuscateExistingSignups) return json(obfuscatedUser(email, data))
    throw new AuthError(422, 'user_already_exists', 'User already registered')
  }
  return json(result.user)
}

/** POST /otp: magic link; unknown or unconfirmed users get a sign-up confirmation, like GoTrue. */
async function otp(ctx: AuthContext, request: Request) {
  const body = await readJsonObject(request)
  const email = requireEmail(body, 'An email address or phone number is required')
  const challenge = readCodeChallenge(body)
  const data = objectField(body, 'data') ?? {}
  const redirectTo = redirectParam(request)
  await ctx.db.transaction(async (tx) => {
    const existing = await findUserByEmail(tx, email)
    if (!existing && (body.create_user === false || ctx.config.disableSignup)) {
      throw new AuthError(422, 'otp_disabled', 'Signups not allowed for otp')
    }
    if (!existing || !existing.email_confirmed_at) {
      const user =
        existing ?? (await createUser(tx, { email, emailConfirmed: false, userMetadata: data }))
      await sendAuthEmail(ctx, tx, { user, kind: 'signup', redirectTo, challenge })
      return
    }
    await sendAuthEmail(ctx, tx, { user: existing, kind: 'magiclink', redirectTo, challenge })
  })
  return json({})
}

/** POST /recover: password reset mail; `{}` also for unknown emails (no enumeration). */
async function recover(ctx: AuthContext, request: Request) {
  const body = await readJsonObject(request)
  const email = requireEmail(body, 'Password recovery requires an email')
  const challenge = readCodeChallenge(body)
  const redirectTo = redirectParam(request)
  await ctx.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email)
    if (user) await sendAuthEmail(ctx, tx, { user, kind: 'recovery', redirectTo, challenge })
  })
  return json({})
}

/** POST /resend: a new sign-up confirmation for an unconfirmed user. */
async function resend(ctx: AuthContext, request: Request) {
  const body = await readJsonObject(request)
  const type = stringField(body, 'type')
  if (type !== 'signup')
    throw errors.validation('Missing one of these types: signup, email_change, sms, phone_change')
  const email = requireEmail(body, 'An email address is required')
  const challenge = readCodeChallenge(body)
  await ctx.db.transaction(async (tx) => {
    const user = await findUserByEmail(tx, email)
    if (user && !user.email_confirmed_at) {
      await sendAuthEmail(ctx, tx, {
        user,
        kind: 'signup',
        redirectTo: redirectParam(request),
        challenge,
      })
    }
  })
  return json({})
}

export function signupRoutes(ctx: AuthContext): Route[] {
  return [
    route('POST', '/signup', (request) => signup(ctx, request)),
    route('POST', '/otp', (request) => otp(ctx, request)),
    route('POST', '/magiclink', (request) => otp(ctx, request)),
    route('POST', '/recover', (request) => recover(ctx, request)),
    route('POST', '/resend', (request) => resend(ctx, request)),
  ]
}
