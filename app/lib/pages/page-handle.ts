/**
 * What a route's `handle` may declare about its page to the server.
 * `sharedAnonymousRender`: the page renders the same HTML for every visitor without a cookie
 * (it reads no per-visitor data beyond its path and query), so the production server may
 * answer such visitors from one render (`app/lib/server/page-cache.server.ts`, decision record 0014).
 */
export interface PageHandle {
  sharedAnonymousRender?: boolean
}
