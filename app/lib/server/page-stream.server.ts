import { PassThrough } from 'node:stream'

import { createReadableStreamFromReadable } from '@remix-run/node'

/**
 * The body a page's render is piped into (`body`) and the web stream the page is answered
 * with (`stream`).
 *
 * The body is not destroyed when it has ended (`autoDestroy: false`). React listens for its
 * destination's 'close' to stop a render the client has left; a body destroyed after a
 * finished render closes too, and React then calls `end()` on it once more, for which Node
 * builds an `ERR_STREAM_ALREADY_FINISHED` error, stack and all, on every page
 * (docs/performance.md, "Where the time goes"). A client that leaves still stops the render:
 * Remix cancels the web stream, which destroys the body, and that closes it.
 */
export function pageBody() {
  const body = new PassThrough({ autoDestroy: false })
  return { body, stream: createReadableStreamFromReadable(body) }
}
