/** `value` if it is a same-site relative path no browser could resolve elsewhere, else `fallback`. */
export function safeNextPath(value: unknown, fallback = '/dashboard'): string {
  if (typeof value !== 'string') return fallback
  if (value.length === 0 || value.length > 512) return fallback
  // Printable ASCII only: no control characters, whitespace, or non-ASCII look-alikes.
  if (!/^[\x21-\x7e]+$/.test(value)) return fallback
  if (!value.startsWith('/')) return fallback
  if (value.startsWith('//')) return fallback
  // Browsers read "\" as "/".
  if (value.includes('\\')) return fallback
  // Encoded "/" or "\" (and double-encoded forms) can be decoded into "//" later on.
  if (/%(25)*(2f|5c)/i.test(value)) return fallback
  const resolved = URL.parse(value, 'http://site.invalid')
  if (resolved?.origin !== 'http://site.invalid') return fallback
  const normalised = `${resolved.pathname}${resolved.search}${resolved.hash}`
  // "/./x/../" tricks that normalise to "//host" would become protocol-relative.
  if (normalised.startsWith('//')) return fallback
  return normalised
}

/** Paths whose own `next` says where an emailed link goes on to. */
const LINK_ROUTES = new Set(['/auth/callback', '/auth/confirm'])

/**
 * The `next` of an emailed link: the templates pass `{{ .RedirectTo }}`, an absolute URL (the
 * callback with its own `next`, or the bare Site URL when off the allow-list). A relative path
 * goes through safeNextPath, a URL on the site's origin counts as its path, else `fallback`.
 */
export function nextFromLink(value: unknown, siteUrl: string, fallback = '/dashboard'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback
  if (!/^https?:\/\//i.test(value)) return safeNextPath(value, fallback)
  const url = URL.parse(value)
  if (!url || url.origin !== new URL(siteUrl).origin || url.username || url.password)
    return fallback
  if (LINK_ROUTES.has(url.pathname)) return safeNextPath(url.searchParams.get('next'), fallback)
  if (url.pathname === '/' && !url.search) return fallback
  return safeNextPath(`${url.pathname}${url.search}${url.hash}`, fallback)
}
