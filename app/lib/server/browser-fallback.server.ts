import type { NoticeKey } from '~/lib/pages/notices'

interface BrowserPages {
  /** The page a signed-out visitor comes back to after signing in, and that explains a failure. */
  page: string
  notice: NoticeKey
}

async function pageFor(response: Response, { page, notice }: BrowserPages): Promise<Response> {
  if (response.status >= 300 && response.status < 400) return response
  const headers = new Headers({ 'Cache-Control': 'no-store' })
  for (const cookie of response.headers.getSetCookie()) headers.append('Set-Cookie', cookie)
  let location: string | null = null
  if (response.ok) {
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { url?: unknown } | null
    if (typeof body?.url === 'string') location = body.url
  } else if (response.status === 401) {
    location = `/sign-in?${new URLSearchParams({ redirectTo: page, notice: 'sign-in-to-continue' })}`
  }
  headers.set('Location', location ?? `${page}?${new URLSearchParams({ notice })}`)
  return new Response(null, { status: 303, headers })
}

/** A browser navigation gets a redirect, never raw JSON; scripts get the handler's JSON. */
export function forBrowsers<Args extends [{ request: Request }, ...unknown[]]>(
  pages: BrowserPages,
  handler: (...args: Args) => Promise<Response>,
): (...args: Args) => Promise<Response> {
  return async (...args) => {
    const response = await handler(...args)
    // Fetch Metadata: a link, a plain form or a typed address; scripts send another mode or none.
    const navigation = args[0].request.headers.get('sec-fetch-mode') === 'navigate'
    return navigation ? pageFor(response, pages) : response
  }
}

export const CHECKOUT_PAGES: BrowserPages = { page: '/pricing', notice: 'checkout-failed' }

export const PORTAL_PAGES: BrowserPages = {
  page: '/dashboard/settings/billing',
  notice: 'portal-failed',
}

export const ALREADY_SUBSCRIBED = '/dashboard/settings/billing?notice=already-subscribed'
