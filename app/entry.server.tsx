import type { EntryContext, HandleErrorFunction } from '@remix-run/node'
import { isRouteErrorResponse, RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'

import { updateCustomerEmail } from '~/billing/customer-email.server'
import { billingProviders, providerFormTargets } from '~/billing/registry.server'
import { getEnv } from '~/env.server'
import { NonceProvider } from '~/lib/pages/nonce'
import { logger } from '~/lib/server/logger.server'
import { offerSharedRender, unmarkSharedRender } from '~/lib/server/page-cache.server'
import { pageBody } from '~/lib/server/page-stream.server'
import {
  applyDocumentHeaders,
  createNonce,
  hasSessionCookie,
} from '~/lib/server/security-headers.server'
import { startMailDelivery } from '~/notifications/delivery.server'
import type { RootLoaderData } from '~/root'

// Configuration is checked when the server starts: a bad setting stops it here, named.
try {
  for (const { startupCheck } of billingProviders()) if (startupCheck) logger.info(startupCheck())
} catch (error) {
  logger.error((error as Error).message)
  process.exit(1)
}

// The middleware of the request stack (server-app.js, docs/architecture.md); for server.js too.
export { mailRequestsSettled } from '~/auth/mail-requests.server'
export { checkDatabase } from '~/lib/database/database-availability.server'
export { capRequestBodies } from '~/lib/server/http.server'
export { httpLogger } from '~/lib/server/logger.server'
export { requestMetrics } from '~/lib/server/metrics.server'
export { anonymousPageCache } from '~/lib/server/page-cache.server'
export { proxyCheckMiddleware } from '~/lib/server/proxy-check.server'
export { requestPolicyMiddleware, unexpectedError } from '~/lib/server/request-policy.server'
export { responseHeaders } from '~/lib/server/security-headers.server'

const ABORT_DELAY = 5_000

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
) {
  const waitForAll = isbot(request.headers.get('user-agent') ?? '')
  // One render's nonce, for React, Remix's scripts and the CSP (the other headers come later).
  const nonce = createNonce()
  const rootData = remixContext.staticHandlerContext.loaderData.root as RootLoaderData | undefined
  const signedIn = Boolean(rootData?.user) || hasSessionCookie(request.headers.get('Cookie'))
  const formTargets = providerFormTargets()
  applyDocumentHeaders(responseHeaders, { env: getEnv(), nonce, signedIn, formTargets })
  // A page answers a method its route does not serve (a post without an action) with 405.
  const route = remixContext.staticHandlerContext.matches.at(-1)?.route
  if (responseStatusCode === 405)
    responseHeaders.set('Allow', `GET, HEAD${route?.action ? ', POST' : ''}`)
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false
    const respond = () => {
      shellRendered = true
      const { body, stream } = pageBody()
      responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
      offerSharedRender(body, {
        context: remixContext,
        status: responseStatusCode,
        signedIn,
        nonce,
        headers: responseHeaders,
      })
      resolve(new Response(stream, { headers: responseHeaders, status: responseStatusCode }))
      pipe(body)
    }
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer
          context={remixContext}
          url={request.url}
          abortDelay={ABORT_DELAY}
          nonce={nonce}
        />
      </NonceProvider>,
      {
        nonce,
        onShellReady() {
          if (!waitForAll) respond()
        },
        onAllReady() {
          // Everything rendered: the abort timer has nothing left to cut short.
          clearTimeout(abortTimer)
          if (waitForAll) respond()
        },
        onShellError(error: unknown) {
          clearTimeout(abortTimer)
          reject(error)
        },
        onError(error: unknown) {
          responseStatusCode = 500
          unmarkSharedRender()
          // Errors after the shell are logged; before it, the shell error rejects above.
          if (shellRendered) logger.error({ err: error }, 'page render failed')
        },
      },
    )
    // Deferred data still pending after ABORT_DELAY is rendered as an error instead.
    const abortTimer = setTimeout(abort, ABORT_DELAY)
  })
}

/** What Remix would print to stderr, stack and all: one log line (a client's 4xx is in the access line). */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted || (isRouteErrorResponse(error) && error.status < 500)) return
  logger.error({ err: error }, 'request failed')
}

// Once the configuration is known good, this instance's mail deliverer starts.
startMailDelivery({ customerEmail: updateCustomerEmail })
