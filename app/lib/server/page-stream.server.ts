import { PassThrough } from 'node:stream'

import { createReadableStreamFromReadable } from '@remix-run/node'

/**
 * `autoDestroy: false`: else React's second `end()` builds an `ERR_STREAM_ALREADY_FINISHED`
 * error, stack and all, on every page (docs/performance.md). A client that leaves still stops
 * the render: Remix cancels the web stream, which destroys the body.
 */
export function pageBody() {
  const body = new PassThrough({ autoDestroy: false })
  return { body, stream: createReadableStreamFromReadable(body) }
}
