import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

import { type DestinationStream, pino, stdSerializers } from 'pino'
import { pinoHttp } from 'pino-http'

import { LOG_LEVELS } from '~/env.server'

import { requestContext } from './request-context.server'

/** One-time credentials in a query: redacted, so a log line can never be replayed as a sign-in. */
const SECRET_PARAMETERS = new Set(['token_hash', 'code', 'token'])

const SECRET_HEADERS = ['authorization', 'cookie', 'set-cookie', 'apikey']

/** Where a line can carry headers: named, since a wildcard doubled the cost of every line. */
const HEADERS_AT = ['', 'req.', 'res.', 'err.', 'request.', 'response.'].map((at) => `${at}headers`)

const REDACTED = '[redacted]'

/** The target with SECRET_PARAMETERS' values redacted, by decoded name, the rest byte for byte. */
export function redactTarget(target: string): string {
  const mark = target.indexOf('?')
  if (mark < 0) return target
  const query = target
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals < 0 ? pair : pair.slice(0, equals)
      // The name as the app reads it: percent-decoded, `+` a space.
      const decoded = new URLSearchParams(`${name}=`).keys().next().value ?? name
      if (!SECRET_PARAMETERS.has(decoded.toLowerCase())) return pair
      return `${name}=${REDACTED}`
    })
  return `${target.slice(0, mark)}?${query.join('&')}`
}

const target = (value: unknown) => (typeof value === 'string' ? redactTarget(value) : value)

/** Asynchronous: a slow log reader never holds up an answer (docs/architecture.md, "Logging"). */
function standardStreams(): DestinationStream {
  return pino.multistream(
    [
      { level: 'debug', stream: pino.destination({ dest: 1, sync: false }) },
      { level: 'warn', stream: pino.destination({ dest: 2, sync: false }) },
    ],
    { dedupe: true },
  )
}

/** The app's pino settings: the request's `reqId` on each line, credentials redacted. */
export function createLogger(destination: DestinationStream = standardStreams()) {
  return pino(
    {
      // LOG_LEVEL when it names a level; otherwise `info` (app/env.server.ts refuses to start).
      level: LOG_LEVELS.find((level) => level === process.env.LOG_LEVEL) ?? 'info',
      messageKey: 'message',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin() {
        const requestId = requestContext.getStore()?.requestId
        return requestId === undefined ? {} : { reqId: requestId }
      },
      serializers: {
        err: stdSerializers.errWithCause,
        req: (req: IncomingMessage & { originalUrl?: string }) => ({
          method: req.method,
          url: redactTarget(req.originalUrl ?? req.url ?? ''),
        }),
        res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
        url: target,
        path: target,
      },
      redact: {
        paths: HEADERS_AT.flatMap((at) => SECRET_HEADERS.map((name) => `${at}["${name}"]`)),
        censor: REDACTED,
      },
    },
    destination,
  )
}

/** The one logger of the process (ESLint refuses `console` elsewhere in app/). */
export const logger = createLogger()

const SANE_REQUEST_ID = /^[\w.:=+/-]{1,128}$/

/** The access line's ids: ours, and beside it a proxy's (or any client's) sane `X-Request-Id`. */
function requestIds(req: IncomingMessage & { id: unknown }) {
  const sent = req.headers['x-request-id']
  const clientReqId = typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : undefined
  return { reqId: req.id, clientReqId }
}

/** One access line per answer, and the request context its other lines are written in. */
export function createHttpLogger(log: typeof logger) {
  const accessLog = pinoHttp({
    logger: log,
    genReqId: () => randomUUID(),
    wrapSerializers: false,
    // Probes and scrapes come every few seconds: only their failures are worth a line.
    customLogLevel: (req, res, error) =>
      !error && res.statusCode < 400 && /^\/(healthz|metrics)(\?|$)/.test(req.url ?? '')
        ? 'silent'
        : 'info',
    customSuccessObject: (req, _res, line) => ({ ...requestIds(req), ...line }),
    customErrorObject: (req, _res, _error, line) => ({ ...requestIds(req), ...line }),
  })
  return (req: IncomingMessage, res: ServerResponse, next: () => void) =>
    accessLog(req, res, () =>
      requestContext.run(
        { clientAddress: req.socket.remoteAddress, requestId: String(req.id) },
        next,
      ),
    )
}

export const httpLogger = createHttpLogger(logger)
