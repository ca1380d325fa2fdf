import { authCookie } from './cookies.server'
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

const linkOriginCookie = () => authCookie('auth_flow', '/auth', LINK_WINDOW_SECONDS, 'auth-flow')

/** This browser's requests for a link within the window. */
async function entries(request: Request): Promise<Entry[]> {
  const now = Math.floor(Date.now() / 1000)
  const value: unknown = await linkOriginCookie().parse(request.headers.get('Cookie'))
  if (!Array.isArray(value)) return []
  return value.filter(
    (entry: Partial<Entry> | null) =>
      typeof entry?.email === 'string' &&
      typeof entry.at === 'number' &&
      now - entry.at <= LINK_WINDOW_SECONDS,
  )
}

/** The Set-Cookie that marks this browser as having asked for a link to each address. */
export async function markLinkRequested(request: Request, ...emails: string[]) {
  const at = Math.floor(Date.now() / 1000)
  const added = emails.map((email) => ({ email: emailKey(email), at }))
  const kept = (await entries(request)).filter(
    (entry) => !added.some((item) => item.email === entry.email),
  )
  return linkOriginCookie().serialize([...added, ...kept].slice(0, MAX_ENTRIES))
}

/**
 * True when this browser asked for an emailed link within the window: to one of `emails`
 * when they are given, else to any address.
 */
export async function askedForLink(request: Request, emails?: (string | null | undefined)[]) {
  const keys = emails?.filter((email): email is string => Boolean(email)).map(emailKey)
  return (await entries(request)).some((entry) => !keys || keys.includes(entry.email))
}
