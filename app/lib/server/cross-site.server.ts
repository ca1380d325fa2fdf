import { getEnv } from '~/env.server'

import { logger } from './logger.server'

/**
 * Cross-site request refusal, on top of the `SameSite=Lax` session cookies. A request that
 * can change state (any method but GET and HEAD) is refused when a browser says it comes
 * from another site:
 *
 * - `Origin` is present and is not `SITE_URL`'s origin (this includes `Origin: null`, sent
 *   by sandboxed frames and `data:` documents), or
 * - `Sec-Fetch-Site` is `cross-site` or `same-site` (a sibling subdomain is another app).
 *
 * A request with neither header is allowed: every browser this app supports sends `Origin`
 * on a POST (and `Sec-Fetch-Site` on every request), so only non-browser clients (curl,
 * server-to-server calls, webhooks) omit both, and they carry no victim's cookies, which is
 * what a cross-site request forgery needs. The webhooks (`/api/webhooks/*`) are exempt:
 * providers post from their own servers and are authenticated by signature instead.
 *
 * Returns why the request is refused, or null when it may proceed.
 */
export function crossSiteRefusal(request: RequestHead, siteUrl: string = getEnv().SITE_URL) {
  if (request.method === 'GET' || request.method === 'HEAD') return null
  const path = new URL(request.url).pathname
  if (path.startsWith('/api/webhooks/')) return null
  const origin = request.headers.get('Origin')
  const site = request.headers.get('Sec-Fetch-Site')?.toLowerCase()
  let reason: string | null = null
  if (origin !== null && origin !== new URL(siteUrl).origin) {
    reason = `Cross-site request refused (Origin ${origin})`
  } else if (site === 'cross-site' || site === 'same-site') {
    reason = `Cross-site request refused (Sec-Fetch-Site ${site})`
  }
  if (reason) logger.warn({ reason, method: request.method, path }, 'cross-site request refused')
  return reason
}

/** What the policy reads of a request: never its body. */
export type RequestHead = Pick<Request, 'method' | 'url'> & { headers: Pick<Headers, 'get'> }

/** The message of an API route's 403 (`{error}` or `{success: false, message}`). */
export const CROSS_SITE_API_MESSAGE = 'Cross-site requests are not allowed'

/** What a person sees on the 403 page. */
export const CROSS_SITE_MESSAGE =
  'This form was sent from another website, so we did not act on it. Please use the form on our site.'
