import { createCookie } from '@remix-run/node'

import { getEnv } from '~/env.server'
import { cookieSecret } from '~/lib/server/cookie-secret.server'

import { emailKey } from './rate-limits.server'

/**
 * Which browser asked for an emailed link (login CSRF, docs/security.md). An emailed
 * `token_hash` link signs in whoever opens it, so a link the attacker asked for, sent to a
 * victim, would silently sign the victim's browser into the attacker's account. Each flow
 * that mails a link (sign-up, magic link, password reset, email change) marks the browser
 * that asked with this signed HttpOnly cookie, naming the addresses (hashed) and when.
 * `/auth/callback` follows a link at once only in a marked browser and only into one of
 * those accounts; anywhere else the person confirms on a page first (`/auth/confirm`).
 */
const LINK_WINDOW_SECONDS = 60 * 60
const MAX_ENTRIES = 5

interface Entry {
  email: string
  at: number
}

function linkOriginCookie() {
  return createCookie('auth_flow', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/auth',
    maxAge: LINK_WINDOW_SECONDS,
    secrets: [cookieSecret('auth-flow')],
    secure: getEnv().NODE_ENV === 'production',
  })
}

async function entries(request: Request, now: number): Promise<Entry[]> {
  const value: unknown = await linkOriginCookie().parse(request.headers.get('Cookie'))
  if (!Array.isArray(value)) return []
  return value.filter(
    (entry): entry is Entry =>
      typeof entry === 'object' &&
      entry !== null &&
      typeof (entry as Entry).email === 'string' &&
      typeof (entry as Entry).at === 'number' &&
      now - (entry as Entry).at <= LINK_WINDOW_SECONDS,
  )
}

/** The Set-Cookie that marks this browser as having asked for a link to each address. */
export async function markLinkRequested(request: Request, ...emails: string[]) {
  const now = Math.floor(Date.now() / 1000)
  const added = emails.map((email) => ({ email: emailKey(email), at: now }))
  const kept = (await entries(request, now)).filter(
    (entry) => !added.some((item) => item.email === entry.email),
  )
  return linkOriginCookie().serialize([...added, ...kept].slice(0, MAX_ENTRIES))
}

/** True when this browser asked for an emailed link within the window. */
export async function askedForLink(request: Request) {
  return (await entries(request, Math.floor(Date.now() / 1000))).length > 0
}

/** True when this browser asked for a link to one of these addresses within the window. */
export async function askedForLinkTo(request: Request, emails: (string | null | undefined)[]) {
  const keys = new Set(emails.filter((email): email is string => Boolean(email)).map(emailKey))
  return (await entries(request, Math.floor(Date.now() / 1000))).some((entry) =>
    keys.has(entry.email),
  )
}
