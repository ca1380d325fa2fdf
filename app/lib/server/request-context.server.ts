import { AsyncLocalStorage } from 'node:async_hooks'

/** What the production server knows about a request that Remix's `Request` does not carry. */
export interface RequestContext {
  /** The direct peer: the client, or the nearest proxy. */
  clientAddress: string | undefined
  requestId?: string
}

/** Entered per request by `httpLogger`; none outside the production stack (callers fall back). */
export const requestContext = new AsyncLocalStorage<RequestContext>()

/** Remix gives each loader of a page view its own `Request`: they share reads by this key. */
export const requestKey = (request: Request): object =>
  ((request.method === 'GET' || request.method === 'HEAD') && requestContext.getStore()) || request

/** The request's id as a header, for the calls made for it (Supabase keeps it in its logs). */
export function requestIdHeader(): Record<string, string> {
  const id = requestContext.getStore()?.requestId
  return id ? { 'X-Request-Id': id } : {}
}
