import { AsyncLocalStorage } from 'node:async_hooks'

/** What the production server knows about a request that Remix's `Request` does not carry. */
export interface RequestContext {
  /** The direct peer: the client, or the nearest proxy. */
  clientAddress: string | undefined
  requestId?: string
}

/**
 * Entered for every request by the request logger (`httpLogger`), so rate limits and log
 * lines need no context threaded through every loader; outside the production request stack
 * there is none, and callers fall back to what they can see.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>()
