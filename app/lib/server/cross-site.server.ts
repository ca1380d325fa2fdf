import { getEnv } from '~/env.server'

import { logger } from './logger.server'

/** Why a state-changing request is refused as cross-site, or null (docs/security.md, "Cross-site requests"). */
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

export const CROSS_SITE_MESSAGE =
  'This form was sent from another website, so we did not act on it. Please use the form on our site.'
