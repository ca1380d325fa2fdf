import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

import { type DestinationStream, pino, stdSerializers } from 'pino'
import { pinoHttp } from 'pino-http'

import { LOG_LEVELS } from '~/env.server'

import { requestContext } from './request-context.server'

/**
 * Query parameters whose values are one-time credentials: an auth link's `token_hash`, a
 * PKCE or OAuth `code`, a `token`. A logged request target has these values replaced, so a
 * log line can never be replayed as a sign-in; every other parameter (`redirectTo`, `type`,
 * `next`…) is kept as it came.
 */
const SECRET_PARAMETERS = new Set(['token_hash', 'code', 'token'])

/** Headers that carry credentials: their values never reach a log line. */
const SECRET_HEADERS = ['authorization', 'cookie', 'set-cookie', 'apikey']

/**
 * Where a line can carry headers. Named paths: a wildcard (`*.headers`) makes pino's
 * redaction walk every line, which more than doubled the cost of writing one.
 */
const HEADERS_AT = ['', 'req.', 'res.', 'err.', 'request.', 'response.'].map((at) => `${at}headers`)

const REDACTED = '[redacted]'

/**
 * A request target as the log shows it: the path unchanged, and in the query the value of
 * every `token_hash`, `code` or `token` parameter (by its decoded name, in any letter case)
 * replaced with `[redacted]`, the rest byte for byte.
 */
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

/**
 * The process's destination: `warn` and `error` lines on stderr, the rest on stdout. Each is
 * pino's own asynchronous file-descriptor stream (sonic-boom): a line is queued and written
 * by libuv, so a slow log reader never holds up an answer, and what is queued is written out
 * when the process exits (docs/decisions/0028-one-logger.md).
 */
function standardStreams(): DestinationStream {
  return pino.multistream(
    [
      { level: 'debug', stream: pino.destination({ dest: 1, sync: false }) },
      { level: 'warn', stream: pino.destination({ dest: 2, sync: false }) },
    ],
    { dedupe: true },
  )
}

/**
 * A pino logger with the app's settings, writing to `destination`: one JSON line per entry
 * (`time`, `level` by name, `message`), at or above LOG_LEVEL; the current request's id
 * (`reqId`) on every line written while serving a request; errors under `err` with their
 * `cause` chains; credentials redacted: the `authorization`, `cookie`, `set-cookie` and
 * `apikey` headers of `headers`, `req`, `res`, `err`, `request` and `response`, and one-time
 * tokens in `url`, `path` and the access log's `req.url`.
 */
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

/**
 * The one logger of the process. Call it as pino is called: `logger.info({ user }, 'message')`,
 * errors as `{ err }`. Never log secrets. ESLint refuses `console` elsewhere in app/
 * (eslint.config.js).
 */
export const logger = createLogger()

/** An incoming X-Request-Id worth keeping: 1 to 128 letters, digits and `_ . : = + / -`. */
const SANE_REQUEST_ID = /^[\w.:=+/-]{1,128}$/

/**
 * The production server's request logger (server.js) over `log`: the request's id (a sane
 * incoming `X-Request-Id`, else a new UUID) in the request context for every line written
 * while serving it, and one access line when the answer is done: `req` (method, target with
 * one-time tokens redacted), `res` (status), `responseTime` in ms.
 */
export function createHttpLogger(log: typeof logger) {
  const accessLog = pinoHttp({
    logger: log,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id']
      return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming)
        ? incoming
        : randomUUID()
    },
    wrapSerializers: false,
    customSuccessObject: (req, _res, line) => ({ reqId: req.id, ...line }),
    customErrorObject: (req, _res, _error, line) => ({ reqId: req.id, ...line }),
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
