import { redirect } from '@remix-run/node'
import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr'
import { type AMREntry, isAuthError, type SupabaseClient } from '@supabase/supabase-js'

import { getEnv } from '~/env.server'
import { type AsUser, database } from '~/lib/database/database.server'
import { authCallsOnBehalfOf } from '~/lib/database/supabase-keys.server'
import { ExpiringCache } from '~/lib/server/expiring-cache'
import { logger } from '~/lib/server/logger.server'
import { clientAddress } from '~/lib/server/rate-limit.server'

import { sessionCookieOptions } from './cookies.server'
import { safeNextPath } from './safe-next-path'
import { isAuthServerUnavailable, isDefiniteSessionEnd } from './session-answers'
import { signingKeys } from './signing-keys.server'
import {
  type VerifiedSession,
  verifiedSessionKey,
  verifiedSessions,
} from './verified-sessions.server'

/** The verified identity of the signed-in user (from the access token's claims). */
export interface SessionUser {
  id: string
  email: string
  /** The auth session the token belongs to (`session_id` claim): ended sessions are refused. */
  sessionId: string
  /**
   * When this session was opened from a password-recovery link (unix seconds, from the
   * token's `amr`), else absent: only such a session may set a password without the
   * current one (`/reset-password`).
   */
  recoveredAt?: number
  /**
   * A plan's checkout chosen before signing up and kept with the account (user metadata
   * `after_sign_up`, billing/plan-intent.server.ts) until the dashboard follows it.
   */
  afterSignUp?: string
}

/**
 * A Supabase client bound to this request's cookies. Cookie writes (a refreshed session,
 * a PKCE verifier, a sign-out) are collected in `headers`; every response built from this
 * request must carry them, or a refresh is lost and the user is signed out. Its auth calls
 * are made on the visitor's behalf (their address forwarded, with a secret key).
 */
export function createSupabaseServerClient(request: Request, headers = new Headers()) {
  const env = getEnv()
  const onBehalf = authCallsOnBehalfOf(clientAddress(request), env)
  const supabase = createServerClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    global: { fetch: withAuthTimeout(onBehalf ?? fetch) },
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

/** No call of a request's client to the auth server waits longer than this. */
const AUTH_CALL_TIMEOUT_MS = 5_000

/**
 * The `fetch` of a request's Supabase client (`send`: the plain one, or the one acting on the
 * visitor's behalf): a call to the auth server that has not answered within
 * AUTH_CALL_TIMEOUT_MS is abandoned (auth-js sets no timeout of its own, and a hanging auth
 * server would otherwise hold every page that refreshes a session).
 */
function withAuthTimeout(send: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (!url.includes('/auth/v1/')) return send(input, init)
    const timeout = AbortSignal.timeout(AUTH_CALL_TIMEOUT_MS)
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout
    return send(input, { ...init, signal })
  }
}

type SessionResult = {
  user: SessionUser | null
  /**
   * The signed-in user's access token (null when signed out): the page reads send it to
   * PostgREST (`database.server.ts`), which runs them as the user, under RLS.
   */
  asUser: AsUser | null
  /**
   * The request's Supabase client, built on first use: a signed-in page whose session this
   * process has already verified reads without one (no cookie decode, no client set-up);
   * actions that change the session or ask the auth server take it. Its cookie writes land
   * in `headers` as ever.
   */
  readonly supabase: SupabaseClient
  headers: Headers
  /**
   * True when the browser's session was valid but has been ended elsewhere ("sign out of
   * all sessions", another browser's sign-out, a deleted user): sign-in then says why.
   */
  endedElsewhere?: boolean
}

/** How long after its last successful existence check a session may be served read-only. */
export const SESSION_CHECK_GRACE_SECONDS = 30

/**
 * Sessions whose existence this process checked successfully within the last
 * SESSION_CHECK_GRACE_SECONDS, by session id (unix seconds). When the check cannot be made
 * (the database or PostgREST fails or does not answer in time), a page view (GET) of such a
 * session is still served; any other request, and any session not checked that recently,
 * gets the 503. So a blip does not take every signed-in page down, and a session ended
 * while the check cannot be made is served read-only pages for at most the grace period
 * after its last successful check. An answer "ended" forgets it at once.
 */
export const sessionConfirmations = new ExpiringCache<true>(10_000, () => Date.now() / 1000)

// One session read per request: the root, layout and page loaders of a navigation all ask,
// and share the result (one client, one verification, at most one token refresh).
const sessions = new WeakMap<Request, Promise<SessionResult>>()
const verifications = new WeakMap<Request, Promise<Verification>>()

/** What a read made while the session is checked gets: the user, their token, the client. */
type VerifiedRead = VerifiedSession & { readonly supabase: SupabaseClient }

/** A request's session before the database has said whether it still exists. */
interface Verification {
  result: SessionResult
  key: string | null
  verified: VerifiedSession | null
}

/** The request's entry of `cache`, made by `make` on the first ask. */
function once<T>(cache: WeakMap<Request, T>, request: Request, make: (request: Request) => T) {
  if (!cache.has(request)) cache.set(request, make(request))
  return cache.get(request) as T
}

/**
 * Verifies the session locally (JWT signature checked against the cached JWKS; no call to
 * the auth server unless the token must be refreshed) and returns the user or null. Every
 * loader of one request gets the same result, client and cookie headers.
 */
export function getOptionalUser(request: Request): Promise<SessionResult> {
  return once(sessions, request, readSession)
}

async function verify(request: Request): Promise<Verification> {
  const headers = new Headers()
  let client: SupabaseClient | undefined
  const result: SessionResult = {
    user: null,
    asUser: null,
    headers,
    // An own, enumerable getter: a copy of the result (`{ ...session }`) still has a client.
    get supabase() {
      client ??= createSupabaseServerClient(request, headers).supabase
      return client
    },
  }
  // No Supabase auth cookie: a visitor who is signed out, with nothing to decode or verify.
  const key = verifiedSessionKey(request)
  if (!key) return { result, key, verified: null }
  const verified = verifiedSessions.recall(key) ?? (await verifyToken(result, key))
  return { result, key, verified }
}

async function readSession(request: Request): Promise<SessionResult> {
  const { result, key, verified } = await once(verifications, request, verify)
  if (!verified || !key) return result
  const state = await sessionState(verified.user)
  if (state === 'ended') {
    verifiedSessions.forget(key)
    await endLocalSession(result.supabase)
    result.endedElsewhere = true
    return result
  }
  if (state === 'unknown') {
    const isRead = request.method === 'GET' || request.method === 'HEAD'
    if (!isRead || !sessionConfirmations.get(verified.user.sessionId)) {
      throw sessionCheckUnavailable()
    }
    logger.warn('session check unavailable: page served on a recent check')
  }
  result.user = verified.user
  result.asUser = verified.asUser
  return result
}

/**
 * `getOptionalUser` with the page's own database read made as the user while the session
 * check is in flight: both travel at once, so the page waits for one round trip, not two.
 * The read goes out as soon as the token is verified (RLS holds it to the user's own rows);
 * its answer is handed over only once the session is known to still exist (null for a
 * visitor who is not signed in, or whose session has ended, whatever the read gave).
 */
export async function getOptionalUserWith<T>(
  request: Request,
  read: (session: VerifiedRead) => Promise<T>,
): Promise<[SessionResult, T | null]> {
  const { verified, result } = await once(verifications, request, verify)
  const reading = verified
    ? read({
        ...verified,
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

/** `requireUser` with the page's own read travelling with the session check (see above). */
export async function requireUserWith<T>(
  request: Request,
  read: (session: VerifiedRead) => Promise<T>,
): Promise<[SignedInSession, T]> {
  const [, value] = await getOptionalUserWith(request, read)
  const session = await requireUser(request)
  return [session, value as T]
}

/**
 * Verifies the access token locally (signature, expiry, claims); null when it is not valid.
 * The same steps as `getClaims()` without a token (the session from the cookies, refreshed
 * when near expiry, then its token's claims verified), taken one by one to keep the token.
 */
async function verifyToken(session: SessionResult, key: string): Promise<VerifiedSession | null> {
  const { supabase, headers } = session
  // A cookie that cannot be read (a token naming another algorithm, `none`, garbage) is a
  // visitor who is signed out, never an error page.
  const unreadable = () => ({ data: null, error: new Error('unreadable session') })
  const cookiesBefore = headers.getSetCookie()
  const current = await withinSessionCheckTime(supabase.auth.getSession()).catch(
    (error: unknown) => {
      if (error instanceof Response) throw error
      return unreadable()
    },
  )
  const refreshError = isAuthError(current.error) ? current.error : null
  if (refreshError && !isDefiniteSessionEnd(refreshError)) {
    // A refresh the auth server did not answer, refused with a 429, or any other answer
    // that does not say the session is gone: the session stays as it is (auth-js may have
    // cleared its cookies; those writes are dropped) and the visitor is asked to try again.
    headers.delete('Set-Cookie')
    for (const cookie of cookiesBefore) headers.append('Set-Cookie', cookie)
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
  // The time a recovery link opened the session, and a plan chosen before signing up.
  const recovery = claims.amr?.find(
    (entry): entry is AMREntry => typeof entry === 'object' && entry.method === 'recovery',
  )
  const recoveredAt = recovery?.timestamp
  const afterSignUp: unknown = claims.user_metadata?.after_sign_up
  const verified: VerifiedSession = {
    user: {
      id: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : '',
      sessionId: claims.session_id,
      ...(typeof recoveredAt === 'number' ? { recoveredAt } : {}),
      ...(typeof afterSignUp === 'string' ? { afterSignUp } : {}),
    },
    asUser: { accessToken },
  }
  // Only a session read as it came: after a refresh the request's cookies are the old ones.
  if (headers.getSetCookie().length === 0 && typeof claims.exp === 'number') {
    verifiedSessions.remember(key, verified, claims.exp)
  }
  return verified
}

const SESSION_CHECK_TIMEOUT_MS = 5_000

export const SIGN_IN_UNAVAILABLE_MESSAGE =
  'Sign-in is unavailable for a moment. Please try again shortly.'

/** A 503 for when the session cannot be checked: never let an unchecked session through. */
function sessionCheckUnavailable() {
  return new Response(SIGN_IN_UNAVAILABLE_MESSAGE, {
    status: 503,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '5' },
  })
}

/**
 * A session read or check through auth-js (and the token refresh it may start), given up
 * after SESSION_CHECK_TIMEOUT_MS with a 503: auth-js retries a refresh the auth server
 * fails for about 25 s, longer than any page should wait.
 */
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

/**
 * Whether the token's session still exists (signed out here or everywhere, or the user
 * deleted, ends it): one primary-key lookup in the database, not a call to the auth server
 * (docs/security.md, "Sessions"). `unknown` when the database cannot answer, or not within
 * SESSION_CHECK_TIMEOUT_MS; each answer is remembered in `sessionConfirmations`.
 */
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
    sessionConfirmations.set(user.sessionId, true, Date.now() / 1000 + SESSION_CHECK_GRACE_SECONDS)
    return 'active'
  }
  sessionConfirmations.delete(user.sessionId)
  return 'ended'
}

/** Clears the browser's session cookies (the auth server is told too, and may shrug). */
async function endLocalSession(supabase: SupabaseClient) {
  await supabase.auth.signOut({ scope: 'local' }).catch(() => {})
}

/**
 * For actions that cannot be undone or hand over control (delete the account, change the
 * email or password, open the billing portal): asks the auth server itself whether the
 * session and user are still valid, on top of the local checks. False: the auth server
 * said the session or its user is gone, and its cookies are cleared on `headers`. Any
 * other failure (a 429, a 5xx, no answer within AUTH_CALL_TIMEOUT_MS) leaves the session
 * alone and throws a 503: such actions fail closed, and never sign anyone out.
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
  await endLocalSession(session.supabase)
  return false
}

/**
 * `requireUser` for destructive page actions: the auth server confirms the session first;
 * an ended one is sent to sign in again (cookies cleared).
 */
export async function requireConfirmedUser(request: Request) {
  const session = await requireUser(request)
  if (!(await confirmedByAuthServer(session))) throw signInRedirect(request, session.headers)
  return session
}

/** The signed-in user, or a redirect to /sign-in that brings them back afterwards. */
export async function requireUser(request: Request) {
  const result = await getOptionalUser(request)
  if (!result.user || !result.asUser) {
    throw signInRedirect(request, result.headers, result.endedElsewhere)
  }
  // The shared result itself (not a copy), so every loader of the request sees one client.
  return result as SignedInSession
}

export type SignedInSession = SessionResult & { user: SessionUser; asUser: AsUser }

function signInRedirect(request: Request, headers: Headers, endedElsewhere = false) {
  const url = new URL(request.url)
  const back = safeNextPath(`${url.pathname}${url.search}`, '/dashboard')
  const params = new URLSearchParams({ redirectTo: back })
  if (endedElsewhere) params.set('notice', 'session-ended-elsewhere')
  return redirect(`/sign-in?${params}`, { headers })
}

/** For sign-in and sign-up pages: a signed-in visitor is sent to the dashboard. */
export async function requireAnonymous(request: Request) {
  const result = await getOptionalUser(request)
  if (result.user) throw redirect('/dashboard', { headers: result.headers })
  return result
}
