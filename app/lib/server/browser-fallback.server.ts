import type { NoticeKey } from '~/lib/pages/notices'

/**
 * True for a request the browser makes to show its answer as a page: following a link,
 * submitting a plain form, typing an address (Fetch Metadata `Sec-Fetch-Mode: navigate`).
 * Scripts and API clients send another mode or none, and keep the JSON contract.
 */
function isBrowserNavigation(request: Request): boolean {
  return request.headers.get('sec-fetch-mode') === 'navigate'
}

interface BrowserPages {
  /** Where a signed-out visitor comes back to after signing in. */
  back: string
  /** The page that explains a failure, with `notice`. */
  page: string
  notice: NoticeKey
}

/** The API answer turned into what a browser should see: a redirect, never raw JSON. */
async function pageFor(response: Response, pages: BrowserPages): Promise<Response> {
  if (response.status >= 300 && response.status < 400) return response
  const headers = new Headers()
  for (const cookie of response.headers.getSetCookie()) headers.append('Set-Cookie', cookie)
  headers.set('Cache-Control', 'no-store')
  let location: string | null = null
  if (response.ok) {
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { url?: unknown } | null
    if (typeof body?.url === 'string') location = body.url
  } else if (response.status === 401) {
    location = `/sign-in?${new URLSearchParams({ redirectTo: pages.back, notice: 'sign-in-to-continue' })}`
  }
  if (!response.ok || location === null) {
    location ??= `${pages.page}?${new URLSearchParams({ notice: pages.notice })}`
  }
  headers.set('Location', location)
  return new Response(null, { status: 303, headers })
}

/**
 * Wraps an API route's handler so that a browser navigation (a link or a plain form the
 * pages use) gets a page: an answered URL is followed, a missing session goes to sign-in
 * with the way back, any other failure goes to `pages.page` with a clear notice. Requests from
 * scripts get the handler's JSON unchanged.
 */
export function forBrowsers<Args extends [{ request: Request }, ...unknown[]]>(
  pages: BrowserPages,
  handler: (...args: Args) => Promise<Response>,
): (...args: Args) => Promise<Response> {
  return async (...args) => {
    const response = await handler(...args)
    return isBrowserNavigation(args[0].request) ? pageFor(response, pages) : response
  }
}

/** The checkout routes' pages: back to pricing. */
export const CHECKOUT_PAGES: BrowserPages = {
  back: '/pricing',
  page: '/pricing',
  notice: 'checkout-failed',
}

/** The portal routes' pages: back to billing. */
export const PORTAL_PAGES: BrowserPages = {
  back: '/dashboard/settings/billing',
  page: '/dashboard/settings/billing',
  notice: 'portal-failed',
}
