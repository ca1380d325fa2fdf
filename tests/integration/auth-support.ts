import { parseCookieHeader } from '@supabase/ssr'
import { decodeJwt } from 'jose'
import { expect } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import { signAccessToken } from '../local-stack/supabase/keys'
import { value } from '../setup/database'
import { PASSWORD } from './accounts'
import { adminClient, type TestApp } from './harness'

/** The session cookie of the local emulator (`sb-<hostname>-auth-token`, maybe chunked). */
export const SESSION_COOKIE = 'sb-localhost-auth-token'

type RouteHandler = (args: {
  request: Request
  params: Record<string, string>
  context: Record<string, unknown>
}) => unknown

/** What a loader or action answered: a Response (thrown or returned) or Remix's data(). */
export interface RouteOutcome<T = unknown> {
  status: number
  headers: Headers
  /** The value of `data(...)`, or the text of a Response. */
  data: T
  location: string | null
}

function isDataWithInit(value: unknown): value is { data: unknown; init: ResponseInit | null } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'DataWithResponseInit'
  )
}

/** Calls a loader or action the way Remix does; a thrown Response counts as the answer. */
export async function callRoute<T = unknown>(
  handler: RouteHandler | undefined,
  request: Request,
): Promise<RouteOutcome<T>> {
  if (!handler) throw new Error('route has no such handler')
  let result: unknown
  try {
    result = await handler({ request, params: {}, context: {} })
  } catch (thrown) {
    result = thrown
  }
  if (result instanceof Response) {
    const { status, headers } = result
    return { status, headers, data: (await result.text()) as T, location: headers.get('Location') }
  }
  if (isDataWithInit(result)) {
    const headers = new Headers(result.init?.headers)
    return { status: result.init?.status ?? 200, headers, data: result.data as T, location: null }
  }
  if (result instanceof Error) throw result
  return { status: 200, headers: new Headers(), data: result as T, location: null }
}

/** A request to the app, with cookies and (for POST) a urlencoded form. */
export function appRequest(
  app: TestApp,
  path: string,
  options: { cookie?: string; form?: Record<string, string> } = {},
) {
  const headers = new Headers()
  if (options.cookie) headers.set('Cookie', options.cookie)
  if (!options.form) return new Request(new URL(path, app.url), { headers })
  headers.set('Content-Type', 'application/x-www-form-urlencoded')
  return new Request(new URL(path, app.url), {
    method: 'POST',
    headers,
    body: new URLSearchParams(options.form),
  })
}

/** The route's loader or action answering `appRequest(app, path, options)`, from `ip` if given. */
export function callAt<T = unknown>(
  app: TestApp,
  handler: RouteHandler | undefined,
  path: string,
  { ip, ...options }: Parameters<typeof appRequest>[2] & { ip?: string } = {},
) {
  const request = appRequest(app, path, options)
  return callRoute<T>(handler, ip ? fromClient(ip, request) : request)
}

/** The request as it comes from `ip` behind the one trusted proxy (TRUSTED_PROXY_COUNT=1). */
export function fromClient(ip: string, request: Request) {
  request.headers.set('X-Forwarded-For', `203.0.113.250, ${ip}`)
  return request
}

/** The cookies a response sets with a value (clearing ones left out), by name. */
export function setCookies(headers: Headers) {
  const cookies = new Map<string, string>()
  for (const line of headers.getSetCookie()) {
    const [pair] = line.split(';')
    const index = pair.indexOf('=')
    const value = pair.slice(index + 1)
    if (value) cookies.set(pair.slice(0, index), value)
  }
  return cookies
}

/** Names of the cookies a response clears (empty value or Max-Age=0). */
export function clearedCookies(headers: Headers) {
  return headers
    .getSetCookie()
    .filter((line) => /^[^=]+=;/.test(line) || /max-age=0/i.test(line))
    .map((line) => line.slice(0, line.indexOf('=')))
}

export interface StoredSession {
  access_token: string
  refresh_token: string
  expires_at: number
  user: { id: string; email: string }
}

/** Decodes the session @supabase/ssr keeps in (possibly chunked) cookies. */
export function readSession(cookies: Map<string, string>): StoredSession | null {
  let raw = cookies.get(SESSION_COOKIE)
  if (raw === undefined) {
    const chunks: string[] = []
    for (let i = 0; cookies.has(`${SESSION_COOKIE}.${i}`); i++)
      chunks.push(cookies.get(`${SESSION_COOKIE}.${i}`)!)
    if (!chunks.length) return null
    raw = chunks.join('')
  }
  raw = decodeURIComponent(raw)
  const json = raw.startsWith('base64-')
    ? Buffer.from(raw.slice('base64-'.length), 'base64url').toString('utf8')
    : raw
  return JSON.parse(json) as StoredSession
}

export function cookieMap(cookie: string) {
  return new Map(parseCookieHeader(cookie).map(({ name, value }) => [name, value ?? '']))
}

/** The same session with an access token that expired a minute ago (its refresh token kept). */
export async function expireSession(cookie: string) {
  const jar = cookieMap(cookie)
  const session = readSession(jar)
  if (!session) throw new Error('no session cookie')
  const now = Math.floor(Date.now() / 1000)
  const claims = decodeJwt(session.access_token)
  const accessToken = await signAccessToken({ ...claims, iat: now - 3660, exp: now - 60 })
  const expired = { ...session, access_token: accessToken, expires_at: now - 60 }
  for (const name of [...jar.keys()]) if (name.startsWith(SESSION_COOKIE)) jar.delete(name)
  jar.set(
    SESSION_COOKIE,
    `base64-${Buffer.from(JSON.stringify(expired), 'utf8').toString('base64url')}`,
  )
  return { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '), session }
}

/** The newest auth mail to `email`, of `kind`, once the app's calls to the auth server are done. */
export async function latestAuthMail(app: TestApp, email: string, kind: string) {
  await mailRequestsSettled()
  const mail = await app.stack.supabase.inbox.latestFor(email)
  expect(mail?.kind).toBe(kind)
  return mail!
}

export const SESSIONS_OF = 'select count(*)::int as value from auth.sessions where user_id = $1'

export function isRevoked(app: TestApp, refreshToken: string) {
  const sql = 'select revoked as value from auth.refresh_tokens where token = $1'
  return value<boolean>(app.stack.database, sql, [refreshToken])
}

/** The token hash of an auth mail to `email`, from the admin generate_link API. */
export async function hashedToken(
  app: TestApp,
  type: 'signup' | 'magiclink' | 'recovery' | 'invite',
  email: string,
) {
  const { data, error } = await adminClient(app).auth.admin.generateLink(
    type === 'signup' ? { type, email, password: PASSWORD } : { type, email },
  )
  if (error) throw error
  return data.properties.hashed_token
}

/** Follows GoTrue's own email link (GET /verify): the app URL it redirects to, with ?code=. */
export async function followVerifyLink(verifyUrl: string) {
  const response = await fetch(verifyUrl, { redirect: 'manual' })
  if (response.status !== 303) throw new Error(`verify link answered ${response.status}`)
  return new URL(response.headers.get('Location')!)
}

/** Walks the local OAuth consent page from an /authorize URL; returns where it sends the browser. */
export async function authorizeOnConsentPage(
  authorizeUrl: string,
  email: string,
  decision: 'authorize' | 'cancel' = 'authorize',
) {
  const start = await fetch(authorizeUrl, { redirect: 'manual' })
  if (start.status !== 302) throw new Error(`authorize answered ${start.status}`)
  const consent = new URL(start.headers.get('Location')!)
  const answer = await fetch(new URL('/auth/v1/_consent', consent), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      flow: consent.searchParams.get('flow') ?? '',
      email,
      decision,
    }),
  })
  if (answer.status !== 302) throw new Error(`consent answered ${answer.status}`)
  return new URL(answer.headers.get('Location')!)
}

/** The Cookie header of a browser that asked for an emailed link to `email`. */
export async function askedForLinkCookie(app: TestApp, email: string) {
  const { markLinkRequested } = await import('../../app/auth/link-origin.server')
  const setCookie = await markLinkRequested(new Request(app.url), email)
  return setCookie.split(';')[0]
}
