import { AsyncLocalStorage } from 'node:async_hooks'

/** What the production server knows about a request that Remix's `Request` does not carry. */
export interface RequestContext {
  /** The socket's remote address (the direct peer: the client, or the nearest proxy). */
  clientAddress: string | undefined
  /** The request's id (a sane incoming `X-Request-Id`, else a new UUID): `reqId` in its log lines. */
  requestId?: string
}

/**
 * The request stack (`server-app.js`) runs every request inside this store (entered by
 * the request logger, `httpLogger` in logger.server.ts), so that rate limits can tell clients
 * apart by socket address and log lines carry the request's id, without threading a context
 * through every loader and action. Outside that server (the Vite dev server, tests that call a
 * handler directly) there is no store, and callers fall back to what they can see.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>()
