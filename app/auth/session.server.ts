import { hash } from 'node:crypto'

import { redirect } from '@remix-run/node'
import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr'
import { type AMREntry, isAuthError, type SupabaseClient } from '@supabase/supabase-js'

import { getEnv } from '~/env.server'
import { type AsUser, database } from '~/lib/database/database.server'
import { authCallsOnBehalfOf } from '~/lib/database/supabase-keys.server'
import { cacheSize, ExpiringCache } from '~/lib/server/expiring-cache'
import { logger } from '~/lib/server/logger.server'
import { legacyTokens, sessionChecks } from '~/lib/server/metrics.server'
import { clientAddress } from '~/lib/server/rate-limit.server'
import { requestIdHeader, requestKey } from '~/lib/server/request-context.server'
import { hasSessionCookie } from '~/lib/server/security-headers.server'

import { sessionCookieOptions } from './cookies.server'
import { safeNextPath } from './safe-next-path'
import { isAuthServerUnavailable, isDefiniteSessionEnd } from './session-answers'
import { signingKeys } from './signing-keys.server'

/**
 * Signed in: the access token verifies (the cookies' session, refreshed near expiry; checked
 * locally by `getClaims` with signing-keys.server.ts' keys) and the database says the session is
 * not ended (`session_is_active`). Only a definite "gone" signs out; no answer is a 503.
 */
export interface SessionUser {
  id: string
  email: string
  sessionId: string
  /** When a recovery link opened this session (`amr`): it may set a password without the old one. */
  recoveredAt?: number
}

/** Its cookie writes land in `headers`, which every response must carry, or a refresh is lost. */
export function createSupabaseServerClient(request: Request, headers = new Headers()) {
  const env = getEnv()
  const onBehalf = authCallsOnBehalfOf(clientAddress(request), env)
  const supabase = createServerClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    global: { fetch: withAuthTimeout(onBehalf ?? fetch), headers: requestIdHeader() },
    cookieOptions: sessionCookieOptions(env),
    cookies: {
      getAll: () => parseCookieHeader(request.headers.get('Cookie') ?? ''),
      setAll(cookies, cacheHeaders) {
        for (const { name, value, options } of cookies)
          headers.append('Set-Cookie', serializeCookieHeader(name, value, options))
        for (const [key, value] of Object.entries(cacheHeaders ?? {})) headers.set(key, value)
      },
    },
  })
  return { supabase, headers }
}

/** auth-js sets no timeout: a hanging auth server would hold every page that refreshes. */
function withAuthTimeout(send: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (!url.includes('/auth/v1/')) return send(input, init)
    const timeout = AbortSignal.timeout(SESSION_CHECK_TIMEOUT_MS)
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
    return send(input, { ...init, signal })
  }
}

type SessionResult = {
  user: SessionUser | null
  /** The token the page reads are sent with: PostgREST runs them as the user, under RLS. */
  asUser: AsUser | null
  /** The request's Supabase client, made on first use; its cookie writes land in `headers`. */
  readonly supabase: SupabaseClient
  headers: Headers
  /** The session was valid but has been ended elsewhere: sign-in then says why. */
  endedElsewhere?: boolean
}

/** What a valid access token says, before the database has said its session still exists. */
type Claimed = { user: SessionUser; asUser: AsUser }
type Verified = { result: SessionResult; claimed: Claimed | null }
const seconds = () => Date.now() / 1000

/**
 * Access tokens this process has verified, by a SHA-256 of the `Cookie` header, until 2 minutes
 * before they expire (supabase-js refreshes within 90 s): the same cookies skip the client, the
 * cookie decode and the signature check (docs/performance.md, "Caches").
 */
const verifiedTokens = new ExpiringCache<Claimed>(cacheSize('sessions', 10_000), seconds)

export const SESSION_CHECK_GRACE_SECONDS = 30

/**
 * Sessions whose existence check said "active" within SESSION_CHECK_GRACE_SECONDS, by id: when
 * the check cannot be made, a page view (GET, HEAD) of such a session is served, not a 503.
 */
export const sessionConfirmations = new ExpiringCache<true>(cacheSize('grace', 10_000), seconds)

/** One session read per request: one existence check per navigation instead of five. */
const requestSessions = new WeakMap<
  object,
  { verified: Promise<Verified>; checked?: Promise<SessionResult> }
>()

function sessionOf(request: Request) {
  let session = requestSessions.get(requestKey(request))
  if (!session) requestSessions.set(requestKey(request), (session = { verified: verify(request) }))
  return session
}

export function getOptionalUser(request: Request): Promise<SessionResult> {
  const session = sessionOf(request)
  return (session.checked ??= session.verified.then((verified) => checked(request, verified)))
}

async function verify(request: Request): Promise<Verified> {
  const headers = new Headers()
  let client: SupabaseClient | undefined
  const result: SessionResult = {
    user: null,
    asUser: null,
    headers,
    // An own, enumerable getter: a copy of the result (`{ ...session }`) still has a client.
    get supabase() {
      return (client ??= createSupabaseServerClient(request, headers).supabase)
    },
  }
  const cookie = request.headers.get('Cookie')
  if (!cookie || !hasSessionCookie(cookie)) return { result, claimed: null }
  const key = hash('sha256', cookie, 'base64url')
  return { result, claimed: verifiedTokens.get(key) ?? (await verifyToken(result, key)) }
}

async function checked(request: Request, { result, claimed }: Verified): Promise<SessionResult> {
  if (!claimed) return result
  const state = await sessionState(claimed.user)
  if (state === 'ended') {
    await result.supabase.auth.signOut({ scope: 'local' }).catch(() => {})
    result.endedElsewhere = true
    return result
  }
  if (state === 'unknown') {
    const isRead = request.method === 'GET' || request.method === 'HEAD'
    if (!isRead || !sessionConfirmations.get(claimed.user.sessionId)) {
      throw sessionCheckUnavailable()
    }
    logger.warn('session check unavailable: page served on a recent check')
    sessionChecks.inc({ answer: 'served' })
  }
  return Object.assign(result, claimed)
}

/**
 * `getOptionalUser` with the page's own read, sent while the session check is in flight (one
 * round trip, not two); its answer is handed over only once the session is known to be live.
 */
export async function getOptionalUserWith<T>(
  request: Request,
  read: (session: Claimed & { readonly supabase: SupabaseClient }) => Promise<T>,
): Promise<[SessionResult, T | null]> {
  const { claimed, result } = await sessionOf(request).verified
  const reading = claimed
    ? read({
        ...claimed,
        get supabase() {
          return result.supabase
        },
      })
    : null
  // Its failure counts only once the session is known to be live (below).
  reading?.catch(() => {})
  const session = await getOptionalUser(request)
  return [session, session.user ? await reading : null]
}

export async function requireUserWith<T>(
  request: Request,
  read: (session: Claimed & { readonly supabase: SupabaseClient }) => Promise<T>,
): Promise<[SignedInSession, T]> {
  const [, value] = await getOptionalUserWith(request, read)
  const session = await requireUser(request)
  return [session, value as T]
}

/** `getSession()` then `getClaims()`, not `getClaims()` alone: the page reads need the token. */
async function verifyToken(
  { supabase, headers }: SessionResult,
  key: string,
): Promise<Claimed | null> {
  // An unreadable cookie (another algorithm, `none`, garbage): signed out, never an error page.
  const unreadable = () => ({ data: null, error: new Error('unreadable session') })
  const current = await withinSessionCheckTime(supabase.auth.getSession()).catch(
    (error: unknown) => {
      if (error instanceof Response) throw error
      return unreadable()
    },
  )
  const refreshError = isAuthError(current.error) ? current.error : null
  if (refreshError && !isDefiniteSessionEnd(refreshError)) {
    // Not a definite end (no answer, a 429, a 5xx): the cookies stay; the visitor tries again.
    headers.delete('Set-Cookie')
    logger.error(
      { status: refreshError.status, code: refreshError.code },
      'session refresh unavailable',
    )
    throw sessionCheckUnavailable()
  }
  const accessToken = current.data?.session?.access_token
  if (current.error || !accessToken) return null
  const jwks = await signingKeys.current()
  const { data, error } = await supabase.auth
    .getClaims(accessToken, jwks ? { jwks } : undefined)
    .catch(unreadable)
  if (isAuthServerUnavailable(error)) {
    // The signing keys could not be fetched: nothing is known about the token.
    logger.error({ err: error }, 'session verification unavailable')
    throw sessionCheckUnavailable()
  }
  const claims = data?.claims
  if (
    error ||
    !claims ||
    typeof claims.sub !== 'string' ||
    claims.role !== 'authenticated' ||
    typeof claims.session_id !== 'string'
  ) {
    return null
  }
  // Verified by Supabase Auth, not here: the legacy JWT secret still signs, whatever the JWKS has.
  if (data.header.alg.startsWith('HS') || !data.header.kid) {
    legacyTokens.inc()
    if (!legacySigningWarned)
      logger.warn({ alg: data.header.alg }, 'sessions signed with the legacy JWT secret')
    legacySigningWarned = true
  }
  const recovery = claims.amr?.find(
    (entry): entry is AMREntry => typeof entry === 'object' && entry.method === 'recovery',
  )
  const recoveredAt = recovery?.timestamp
  const claimed = {
    user: {
      id: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : '',
      sessionId: claims.session_id,
      ...(typeof recoveredAt === 'number' ? { recoveredAt } : {}),
    },
    asUser: { accessToken },
  }
  // Only a session read as it came: after a refresh the request's cookies are the old ones.
  if (!headers.has('Set-Cookie') && typeof claims.exp === 'number') {
    verifiedTokens.set(key, claimed, claims.exp - 120)
  }
  return claimed
}

const SESSION_CHECK_TIMEOUT_MS = 5_000

let legacySigningWarned = false

export const SIGN_IN_UNAVAILABLE_MESSAGE =
  'Sign-in is unavailable for a moment. Please try again shortly.'

/** A 503 for when the session cannot be checked: never let an unchecked session through. */
function sessionCheckUnavailable() {
  sessionChecks.inc({ answer: '503' })
  return new Response(SIGN_IN_UNAVAILABLE_MESSAGE, {
    status: 503,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '5' },
  })
}

/** A 503 after SESSION_CHECK_TIMEOUT_MS: auth-js retries a failing refresh for about 25 s. */
async function withinSessionCheckTime<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      logger.error({ timeoutMs: SESSION_CHECK_TIMEOUT_MS }, 'auth server did not answer in time')
      reject(sessionCheckUnavailable())
    }, SESSION_CHECK_TIMEOUT_MS)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/** One primary-key lookup in the database, not a call to the auth server (docs/security.md). */
async function sessionState(user: SessionUser): Promise<'active' | 'ended' | 'unknown'> {
  const { data, error } = await database({ timeoutMs: SESSION_CHECK_TIMEOUT_MS }).rpc(
    'session_is_active',
    { p_session_id: user.sessionId, p_user_id: user.id },
  )
  if (error) {
    logger.error({ err: error }, 'session check failed')
    return 'unknown'
  }
  if (data === true) {
    sessionConfirmations.set(user.sessionId, true, seconds() + SESSION_CHECK_GRACE_SECONDS)
    return 'active'
  }
  sessionConfirmations.delete(user.sessionId)
  return 'ended'
}

/**
 * For actions that cannot be undone or hand over control (money, credentials, the account):
 * the auth server itself confirms the session. False, with its cookies cleared, when it said
 * the session is gone; any other failure is a 503: such actions fail closed, signing nobody out.
 */
export async function confirmedByAuthServer(session: {
  user: SessionUser
  supabase: SupabaseClient
}): Promise<boolean> {
  const { data, error } = await withinSessionCheckTime(session.supabase.auth.getUser())
  if (!error && data.user?.id === session.user.id) return true
  if (error && !isDefiniteSessionEnd(error)) {
    logger.error({ err: error, status: error.status, code: error.code }, 'auth server check failed')
    throw sessionCheckUnavailable()
  }
  await session.supabase.auth.signOut({ scope: 'local' }).catch(() => {})
  return false
}

/** `requireUser` confirmed by the auth server (above); an ended session goes to sign in. */
export async function requireConfirmedUser(request: Request) {
  const session = await requireUser(request)
  if (!(await confirmedByAuthServer(session))) throw signInRedirect(request, session.headers)
  return session
}

export async function requireUser(request: Request) {
  const result = await getOptionalUser(request)
  if (!result.user || !result.asUser) {
    throw signInRedirect(request, result.headers, result.endedElsewhere)
  }
  return result as SignedInSession
}

export type SignedInSession = SessionResult & { user: SessionUser; asUser: AsUser }

function signInRedirect(request: Request, headers: Headers, endedElsewhere = false) {
  const url = new URL(request.url)
  const back = safeNextPath(`${url.pathname}${url.search}`, '/dashboard')
  const notice = endedElsewhere ? 'session-ended-elsewhere' : 'sign-in-to-continue'
  return redirect(`/sign-in?${new URLSearchParams({ redirectTo: back, notice })}`, { headers })
}

export async function requireAnonymous(request: Request) {
  const result = await getOptionalUser(request)
  if (result.user) throw redirect('/dashboard', { headers: result.headers })
  return result
}
