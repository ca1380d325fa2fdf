import type { IncomingMessage, ServerResponse } from 'node:http'

import { BodyTooLarge, parseForm } from '../http'
import { apiVersion, authorize } from './auth'
import type { EmulatorContext } from './context'
import type { FaultInjector } from './faults'
import {
  ApiError,
  readBody,
  redirect,
  type Req,
  type Router,
  sendJson,
  ValidationFailed,
} from './http'

export interface ServerDeps {
  router: Router
  ctx: EmulatorContext
  faults: FaultInjector
  /** This server's tokens and their scopes; undefined accepts any non-empty token. */
  tokens?: ReadonlyMap<string, readonly string[]>
}

function parseBody(raw: string, contentType: string): { body: unknown; isForm: boolean } {
  if (raw === '') return { body: undefined, isForm: false }
  if (contentType.includes('application/x-www-form-urlencoded')) {
    return { body: parseForm(raw), isForm: true }
  }
  try {
    return { body: JSON.parse(raw), isForm: false }
  } catch (error) {
    throw new ValidationFailed([
      {
        type: 'json_invalid',
        loc: ['body', 0],
        msg: 'JSON decode error',
        input: {},
        ...{ ctx: { error: String(error) } },
      },
    ])
  }
}

function sleep(ctx: EmulatorContext, ms: number) {
  return new Promise<void>((resolve) => ctx.later(ms, resolve))
}

/** The HTTP entry point: body parsing, auth and fault injection for /v1, routing, error shapes. */
export function createRequestHandler({ router, ctx, faults, tokens }: ServerDeps) {
  return async (incoming: IncomingMessage, res: ServerResponse) => {
    const url = new URL(incoming.url ?? '/', 'http://localhost')
    const method = (incoming.method ?? 'GET').toUpperCase()
    try {
      const raw = await readBody(incoming)
      const isApi = url.pathname.startsWith('/v1/') || url.pathname === '/v1'
      if (isApi) {
        const call = `${method} ${url.pathname}`
        ctx.apiCalls.set(call, (ctx.apiCalls.get(call) ?? 0) + 1)
        const fault = faults.take(method, url.pathname)
        if (fault?.delayMs) await sleep(ctx, fault.delayMs)
        if (fault?.status) {
          return sendJson(
            res,
            fault.status,
            fault.body ?? {
              error: 'InjectedFault',
              detail: `Injected ${fault.status} for ${method} ${url.pathname}`,
            },
          )
        }
        const version = apiVersion(incoming)
        if (!version) return sendJson(res, 404, { detail: 'Not Found' })
        res.setHeader('polar-version', version)
        const auth = authorize(incoming, method, url.pathname, tokens)
        if (!auth.ok) return sendJson(res, auth.status, auth.body, auth.headers)
      }
      const { handler, params, redirectTo } = router.match(method, url.pathname)
      if (redirectTo) return redirect(res, `${redirectTo}${url.search}`, 307)
      if (!handler) {
        if (isApi) return sendJson(res, 404, { detail: 'Not Found' })
        return sendJson(res, 404, {
          error: 'NotFound',
          detail: `No route for ${method} ${url.pathname}`,
        })
      }
      const { body, isForm } = parseBody(raw, incoming.headers['content-type'] ?? '')
      const req: Req = {
        method,
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        params,
        rawBody: raw,
        isForm,
        body,
        wantsJson: (incoming.headers.accept ?? '').includes('application/json'),
      }
      await handler(req, res)
    } catch (error) {
      if (res.headersSent) return res.end()
      if (error instanceof ApiError)
        return sendJson(res, error.status, { error: error.error, detail: error.detail })
      if (error instanceof ValidationFailed) return sendJson(res, 422, { detail: error.detail })
      if (error instanceof BodyTooLarge)
        return sendJson(res, 413, { error: 'RequestEntityTooLarge', detail: error.message })
      console.error('[polar-emulator]', error)
      sendJson(res, 500, {
        error: 'InternalServerError',
        detail: error instanceof Error ? error.message : String(error),
      })
    }
  }
}
