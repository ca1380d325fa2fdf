import type { AuthConfig } from './context'

function globToRegExp(pattern: string) {
  let source = ''
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]
    if (char === '*' && pattern[i + 1] === '*') {
      source += '.*'
      i++
    } else if (char === '*') source += '[^./]*'
    else if (char === '?') source += '[^./]'
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

/** GoTrue's redirect rule: same origin as SITE_URL, or an entry of the allow list (glob or prefix). */
export function isRedirectAllowed(config: AuthConfig, candidate: string) {
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  if (url.origin === new URL(config.siteUrl).origin) return true
  return config.redirectAllowList.some((entry) =>
    /[*?]/.test(entry) ? globToRegExp(entry).test(candidate) : candidate.startsWith(entry),
  )
}

/** The redirect to use: the requested one when allowed, else SITE_URL. */
export function resolveRedirect(config: AuthConfig, requested: string | null | undefined) {
  return requested && isRedirectAllowed(config, requested) ? requested : config.siteUrl
}

/**
 * The link an email carries, in Supabase's SSR pattern: the allowed `redirect_to` (or
 * SITE_URL/auth/callback) with `token_hash` and `type` added to its query.
 */
export function emailLink(
  config: AuthConfig,
  redirectTo: string | null | undefined,
  tokenHash: string,
  type: string,
) {
  const base =
    redirectTo && isRedirectAllowed(config, redirectTo)
      ? redirectTo
      : `${config.siteUrl.replace(/\/$/, '')}/auth/callback`
  const url = new URL(base)
  url.searchParams.set('token_hash', tokenHash)
  url.searchParams.set('type', type)
  return url.toString()
}

/** GoTrue's own {{ .ConfirmationURL }}: GET /auth/v1/verify, which redirects with ?code= (PKCE). */
export function verifyUrl(
  config: AuthConfig,
  redirectTo: string | null | undefined,
  tokenHash: string,
  type: string,
) {
  const url = new URL(`${config.url}/auth/v1/verify`)
  url.searchParams.set('token', tokenHash)
  url.searchParams.set('type', type)
  url.searchParams.set('redirect_to', resolveRedirect(config, redirectTo))
  return url.toString()
}
