import { isIP } from 'node:net'

import type { AuthConfig } from './context'
import { compileGlob } from './glob'

/** The auth server's redirect rule (request.go `IsRedirectURLValid`; README.md, "Redirects"). */

/** The parts of a URL as Go's net/url.Parse reads them (null where it refuses the URL). */
interface GoUrl {
  scheme: string
  hostname: string
  port: string
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '0.0.0.0', '::'])
const DECIMAL = /^[0-9]+$/
const REGULAR_HOSTNAME = /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/
/** Characters net/url refuses in a host (shouldEscape in encodeHost mode, ASCII only). */
const BAD_HOST_CHAR = /[^A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"%\u0080-\uffff]/

function parseLikeGo(raw: string): GoUrl | null {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return null
  let rest = raw.split('#', 1)[0]
  let scheme = ''
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest)
  if (schemeMatch) {
    scheme = schemeMatch[1].toLowerCase()
    rest = rest.slice(schemeMatch[0].length)
  } else if (rest.startsWith(':')) return null
  rest = rest.split('?', 1)[0]
  const none = { scheme, hostname: '', port: '' }
  if (!rest.startsWith('/')) {
    if (!scheme && rest.split('/', 1)[0].includes(':')) return null
    return none
  }
  if (!rest.startsWith('//') || (!scheme && rest.startsWith('///'))) return none
  let authority = rest.slice(2)
  const slash = authority.indexOf('/')
  if (slash >= 0) authority = authority.slice(0, slash)
  const host = authority.slice(authority.lastIndexOf('@') + 1)
  let hostname = host
  let port = ''
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    if (end < 0) return null
    const colonPort = host.slice(end + 1)
    if (!/^(:[0-9]*)?$/.test(colonPort)) return null
    hostname = host.slice(1, end)
    port = colonPort.slice(1)
  } else {
    const colon = host.lastIndexOf(':')
    if (colon >= 0) {
      if (!/^:[0-9]*$/.test(host.slice(colon))) return null
      hostname = host.slice(0, colon)
      port = host.slice(colon + 1)
    }
  }
  if (BAD_HOST_CHAR.test(hostname) || /%(?![0-9a-fA-F]{2})/.test(hostname)) return null
  try {
    hostname = decodeURIComponent(hostname)
  } catch {
    return null
  }
  return { scheme, hostname, port }
}

/** Go's net.IP.IsLoopback for a host that net.ParseIP accepts; null when it is no IP. */
function loopbackIp(hostname: string): boolean | null {
  const version = isIP(hostname)
  if (version === 4) return hostname.startsWith('127.')
  if (version !== 6 || hostname.includes('%')) return null
  const canonical = new URL(`http://[${hostname}]`).hostname
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical)
}

const globs = new Map<string, { match(value: string): boolean }>()
function glob(entry: string) {
  let compiled = globs.get(entry)
  if (!compiled) {
    compiled = compileGlob(entry)
    globs.set(entry, compiled)
  }
  return compiled
}

/** True when the auth server would send a browser to `candidate` (see the rules above). */
export function isRedirectAllowed(
  config: Pick<AuthConfig, 'siteUrl' | 'redirectAllowList'>,
  candidate: string,
) {
  if (!candidate) return false
  const base = parseLikeGo(config.siteUrl)
  const url = parseLikeGo(candidate)
  if (!base || !url) return false
  if (
    base.hostname === url.hostname &&
    base.scheme === url.scheme &&
    (base.port === url.port || LOOPBACK_NAMES.has(url.hostname.toLowerCase()))
  ) {
    return true
  }
  const isHttp = url.scheme === 'http' || url.scheme === 'https'
  if (DECIMAL.test(url.hostname)) return false
  const loopback = loopbackIp(url.hostname)
  if (loopback !== null) return loopback
  if (isHttp && !REGULAR_HOSTNAME.test(url.hostname)) return false
  const withoutFragment = candidate.split('#', 1)[0]
  return config.redirectAllowList.some((entry) => glob(entry).match(withoutFragment))
}

/** The redirect the auth server uses: the requested one when allowed, else the bare Site URL. */
export function resolveRedirect(
  config: Pick<AuthConfig, 'siteUrl' | 'redirectAllowList'>,
  requested: string | null | undefined,
) {
  return requested && isRedirectAllowed(config, requested) ? requested : config.siteUrl
}

/** Go's url.QueryEscape: everything but letters, digits and `-_.~` escaped, space as `+`. */
function queryEscape(value: string) {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+')
}

/** `{{ .ConfirmationURL }}` (getPath): `redirect_to` escaped only when it has `&`, `=` or `#`. */
export function confirmationUrl(
  config: AuthConfig,
  redirectTo: string,
  tokenHash: string,
  type: string,
) {
  const redirect = /[&=#]/.test(redirectTo) ? queryEscape(redirectTo) : redirectTo
  return `${config.url}/auth/v1/verify?token=${queryEscape(tokenHash)}&type=${queryEscape(type)}&redirect_to=${redirect}`
}

/** Compiles every allow-list entry, as the auth server does at start-up (a bad glob stops it). */
export function checkAllowList(entries: string[]) {
  for (const entry of entries) glob(entry)
}
