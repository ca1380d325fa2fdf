/** The shape of the `/v1` route table: a method, a path pattern and a handler. */
import { type Route as ToolkitRoute, route as toolkitRoute } from '../http'
import type { EventRequest } from './events'
import type { Params } from './http'
import type { BillingContext } from './subscriptions'

export interface ApiCall {
  method: string
  path: string
  params: Params
  request: EventRequest
}

type Handler = (ctx: BillingContext, call: ApiCall, ids: string[]) => unknown

export type Route = ToolkitRoute<Handler>

/** One path segment that is an id (captured and URL-decoded for the handler). */
export const ID = '([^/]+)'

/** A route for `/v1/<path>`. */
export const route = (method: string, path: string, handle: Handler): Route =>
  toolkitRoute(method, new RegExp(`^/v1/${path}$`), handle)
