/** `sharedAnonymousRender`: one render may answer every visitor without a cookie (page cache). */
export interface PageHandle {
  sharedAnonymousRender?: boolean
}
