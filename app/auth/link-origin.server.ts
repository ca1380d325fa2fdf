import { authCookie } from './cookies.server'
import { emailKey } from './rate-limits.server'

/**
 * Login CSRF (docs/security.md): a `token_hash` link signs in whoever opens it, so each flow
 * that mails one marks the asking browser with the (hashed) addresses and when.
 */
const LINK_WINDOW_SECONDS = 60 * 60
const MAX_ENTRIES = 5

interface Entry {
  email: string
  at: number
}

const linkOriginCookie = () => authCookie('auth_flow', LINK_WINDOW_SECONDS, 'auth-flow')

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

export async function markLinkRequested(request: Request, ...emails: string[]) {
  const at = Math.floor(Date.now() / 1000)
  const added = emails.map((email) => ({ email: emailKey(email), at }))
  const kept = (await entries(request)).filter(
    (entry) => !added.some((item) => item.email === entry.email),
  )
  return linkOriginCookie().serialize([...added, ...kept].slice(0, MAX_ENTRIES))
}

/** Without `emails`, a link to any address counts. */
export async function askedForLink(request: Request, emails?: (string | null | undefined)[]) {
  const keys = emails?.filter((email): email is string => Boolean(email)).map(emailKey)
  return (await entries(request)).some((entry) => !keys || keys.includes(entry.email))
}
