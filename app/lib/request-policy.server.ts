import { CROSS_SITE_API_MESSAGE, CROSS_SITE_MESSAGE, crossSiteRefusal } from './cross-site.server'

/**
 * The request policy that runs before Remix, in front of every route: `server.js` in
 * production and a middleware of the Vite dev server (vite.config.ts) call it for every
 * request that may change state. A route added tomorrow is covered without doing anything.
 *
 * Today it refuses cross-site requests (`cross-site.server.ts`) with a 403 in the shape of
 * the path: a page for pages (Remix's own guard would otherwise answer an empty 500 before
 * any action runs), `{success: false, message}` for `/api/contact`, `{error}` for the other
 * APIs and resource routes. The actions keep their own check as well, so a route reached
 * some other way (a test calling it, a custom server) is refused too.
 *
 * Returns the answer, or null to let the request through to Remix.
 */
export function requestPolicy(request: Request): Response | null {
  if (request.method === 'GET' || request.method === 'HEAD') return null
  if (!crossSiteRefusal(request)) return null
  const path = new URL(request.url).pathname
  const headers = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }
  if (path === '/api/contact') {
    return Response.json(
      { success: false, message: CROSS_SITE_API_MESSAGE },
      { status: 403, headers },
    )
  }
  if (path.startsWith('/api/') || path === '/sign-out' || path.startsWith('/auth/callback')) {
    return Response.json({ error: CROSS_SITE_API_MESSAGE }, { status: 403, headers })
  }
  return new Response(refusedPage(), {
    status: 403,
    headers: {
      ...headers,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
      'X-Frame-Options': 'DENY',
    },
  })
}

function refusedPage() {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Request refused | Subscribely</title>
</head>
<body>
<main>
<h1>Request refused</h1>
<p>${CROSS_SITE_MESSAGE}</p>
<p><a href="/">Go to Subscribely</a></p>
</main>
</body>
</html>
`
}
