import { PassThrough } from 'node:stream'

import { createReadableStreamFromReadable } from '@remix-run/node'

/**
 * `autoDestroy: false`: else React's second `end()` builds an error, stack and all, on every
 * page; a client that leaves still stops the render (docs/performance.md).
 */
export function pageBody() {
  const body = new PassThrough({ autoDestroy: false })
  return { body, stream: createReadableStreamFromReadable(body) }
}
