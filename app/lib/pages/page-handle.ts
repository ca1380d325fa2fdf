/**
 * `sharedAnonymousRender`: the page's HTML is the same for every visitor without a cookie,
 * so the server may answer them from one render (`app/lib/server/page-cache.server.ts`).
 */
export interface PageHandle {
  sharedAnonymousRender?: boolean
}
