/**
 * Returns `value` when it is a safe, same-site relative path (e.g. "/dashboard?tab=1"),
 * otherwise `fallback`. Rejects anything a browser could resolve to another origin:
 * scheme URLs, protocol-relative "//host", backslashes (browsers treat "\" as "/"),
 * percent-encoded slashes or backslashes, control and whitespace characters, non-ASCII,
 * dot segments that normalise to "//host", and very long values.
 */
export function safeNextPath(value: unknown, fallback = '/dashboard'): string {
  if (typeof value !== 'string') return fallback
  if (value.length === 0 || value.length > 512) return fallback
  // Printable ASCII only: no control characters, whitespace, or non-ASCII look-alikes.
  if (!/^[\x21-\x7e]+$/.test(value)) return fallback
  if (!value.startsWith('/')) return fallback
  if (value.startsWith('//')) return fallback
  if (value.includes('\\')) return fallback
  // Encoded "/" or "\" (and double-encoded forms) can be decoded into "//" later on.
  if (/%(25)*(2f|5c)/i.test(value)) return fallback
  let resolved: URL
  try {
    resolved = new URL(value, 'http://site.invalid')
  } catch {
    return fallback
  }
  if (resolved.origin !== 'http://site.invalid') return fallback
  const normalised = `${resolved.pathname}${resolved.search}${resolved.hash}`
  // "/./x/../" tricks that normalise to "//host" would become protocol-relative.
  if (normalised.startsWith('//')) return fallback
  return normalised
}
