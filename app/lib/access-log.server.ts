/**
 * Query parameters whose values are one-time credentials: an auth link's `token_hash`, a
 * PKCE or OAuth `code`, a `token`. The access log (server-app.js) writes each request's path
 * with these values replaced, so a log line can never be replayed as a sign-in; every other
 * parameter (`redirectTo`, `type`, `next`…) is kept as it came.
 */
const SECRET_PARAMETERS = new Set(['token_hash', 'code', 'token'])

const REDACTED = '[redacted]'

/** The name of a query parameter as the app reads it (percent-decoded; `+` is a space). */
function parameterName(raw: string): string {
  const name = raw.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(name)
  } catch {
    return name
  }
}

/**
 * The request target as the access log shows it: the path unchanged, and in the query the
 * value of every `token_hash`, `code` or `token` parameter (by its decoded name, in any
 * letter case) replaced with `[redacted]`, the rest byte for byte.
 */
export function accessLogPath(target: string): string {
  const mark = target.indexOf('?')
  if (mark < 0) return target
  const query = target
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals < 0 ? pair : pair.slice(0, equals)
      if (!SECRET_PARAMETERS.has(parameterName(name).toLowerCase())) return pair
      return `${name}=${REDACTED}`
    })
  return `${target.slice(0, mark)}?${query.join('&')}`
}
