import { execFile } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'

import { afterEach, describe, expect, it, vi } from 'vitest'

import { createHttpLogger, createLogger, redactTarget } from './logger.server'
import { requestContext } from './request-context.server'

afterEach(() => {
  vi.unstubAllEnvs()
})

type Line = Record<string, unknown>

/** A logger with the app's settings at `level`, and the lines it wrote, parsed. */
function capturing(level = 'info') {
  vi.stubEnv('LOG_LEVEL', level)
  const lines: Line[] = []
  const raw: string[] = []
  const log = createLogger({
    write(line: string) {
      raw.push(line)
      lines.push(JSON.parse(line) as Line)
    },
  })
  return { log, lines, raw }
}

describe('the logger', () => {
  it('writes one JSON line per entry: ISO time, level by name, message, fields', () => {
    const { log, lines } = capturing()
    log.info({ contact: { email: 'ada@example.com' } }, 'contact: new message')
    expect(lines).toEqual([
      {
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        level: 'info',
        message: 'contact: new message',
        contact: { email: 'ada@example.com' },
      },
    ])
  })

  it('drops entries below LOG_LEVEL', () => {
    const { log, lines } = capturing('error')
    log.info('quiet')
    log.warn('quiet too')
    log.error('loud')
    expect(lines.map((line) => line.message)).toEqual(['loud'])
    expect(capturing('silent').log.isLevelEnabled('error')).toBe(false)
  })

  it('keeps an error with its type, stack, own fields and cause chain', () => {
    const { log, lines } = capturing()
    const cause = Object.assign(new TypeError('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
    const error = new Error('ledger call failed', { cause: new Error('fetch failed', { cause }) })
    log.error({ err: error, id: 'evt_1' }, 'stripe webhook: processing failed')
    const [line] = lines
    expect(line).toMatchObject({
      id: 'evt_1',
      err: {
        type: 'Error',
        message: 'ledger call failed',
        cause: {
          message: 'fetch failed',
          cause: { type: 'TypeError', message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' },
        },
      },
    })
    expect(String((line.err as { stack: string }).stack)).toContain('logger.server.test.ts')
  })

  it('redacts credential headers and one-time tokens wherever a line carries them', () => {
    const { log, lines } = capturing()
    const headers = {
      authorization: 'Bearer secret-jwt',
      cookie: 'sb-auth-token=secret-cookie',
      'set-cookie': ['sb-auth-token=secret-set-cookie'],
      apikey: 'secret-apikey',
      accept: 'text/html',
    }
    log.warn({ headers, url: '/auth/confirm?token_hash=secret-hash&type=signup' }, 'a')
    log.warn({ request: { headers }, path: '/auth/callback?code=secret-code&next=%2F' }, 'b')
    log.error({ err: Object.assign(new Error('refused'), { headers }) }, 'c')
    const written = JSON.stringify(lines)
    for (const secret of ['secret-jwt', 'secret-cookie', 'secret-set-cookie', 'secret-apikey'])
      expect(written).not.toContain(secret)
    expect(lines[0]).toMatchObject({
      headers: {
        authorization: '[redacted]',
        cookie: '[redacted]',
        'set-cookie': '[redacted]',
        apikey: '[redacted]',
        accept: 'text/html',
      },
      url: '/auth/confirm?token_hash=[redacted]&type=signup',
    })
    expect(lines[1]).toMatchObject({
      request: { headers: { cookie: '[redacted]', accept: 'text/html' } },
      path: '/auth/callback?code=[redacted]&next=%2F',
    })
    expect(lines[2]).toMatchObject({ err: { headers: { authorization: '[redacted]' } } })
  })

  it('carries the id of the request being served, and none outside a request', () => {
    const { log, lines, raw } = capturing()
    requestContext.run({ clientAddress: undefined, requestId: 'req-7' }, () => {
      log.info('inside')
      log.info({ reqId: 'req-7' }, 'named twice, written once')
    })
    log.info('outside')
    expect(lines[0]).toMatchObject({ message: 'inside', reqId: 'req-7' })
    expect(lines[1]).toMatchObject({ reqId: 'req-7' })
    expect(raw[1].split('"reqId"')).toHaveLength(2)
    expect(lines[2]).not.toHaveProperty('reqId')
  })

  it('writes warnings and errors to stderr, the rest to stdout, all of it before an exit', async () => {
    const script = `
      const { logger } = await import('./app/lib/server/logger.server.ts')
      logger.info({ n: 1 }, 'to stdout')
      logger.error({ n: 2 }, 'to stderr, then exit')
      process.exit(1)
    `
    const run = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { env: { ...process.env, LOG_LEVEL: 'info' } },
    ).catch((error: { code: number; stdout: string; stderr: string }) => error)
    expect(run).toMatchObject({ code: 1 })
    const parsed = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Line)
    expect(parsed(run.stdout)).toEqual([expect.objectContaining({ n: 1, level: 'info' })])
    expect(parsed(run.stderr)).toEqual([expect.objectContaining({ n: 2, level: 'error' })])
  })
})

describe('the request logger', () => {
  const servers: http.Server[] = []
  afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((ok) => s.close(ok)))))

  /** A server behind the request logger whose handler logs one line and answers `status`. */
  async function serve(status = 200) {
    const { log, lines, raw } = capturing()
    const httpLogger = createHttpLogger(log)
    const server = http.createServer((req, res) =>
      httpLogger(req, res, () => {
        // Later, on another tick: the context follows the request's own work.
        setTimeout(() => {
          log.info({ clientAddress: requestContext.getStore()?.clientAddress }, 'handled')
          res.statusCode = status
          res.end('ok')
        }, 1)
      }),
    )
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines, raw }
  }

  /** The lines of one request, once its access line is written. */
  async function linesOf(lines: Line[], count: number) {
    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(count))
    return lines.splice(0, count)
  }

  it('writes its own id on every line of a request, a sane X-Request-Id beside it, and redacts its target', async () => {
    const app = await serve()
    await fetch(`${app.origin}/auth/callback?code=secret-code&next=%2Fbilling`, {
      headers: { 'x-request-id': 'edge-01HZ:abc/1=' },
    })
    const [handled, access] = await linesOf(app.lines, 2)
    const reqId = expect.stringMatching(/^[0-9a-f-]{36}$/)
    expect(handled).toMatchObject({ message: 'handled', reqId, clientAddress: '127.0.0.1' })
    expect(handled).not.toHaveProperty('clientReqId')
    expect(access).toMatchObject({
      level: 'info',
      message: 'request completed',
      reqId: handled.reqId,
      clientReqId: 'edge-01HZ:abc/1=',
      req: { method: 'GET', url: '/auth/callback?code=[redacted]&next=%2Fbilling' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    })
    // Written once, though both the line and the request's context name it.
    expect(app.raw[1].split('"reqId"')).toHaveLength(2)
    expect(app.raw.join('')).not.toContain('secret-code')
  })

  it('gives each request a new id, and records no client id that is not sane', async () => {
    const app = await serve(500)
    const ids: unknown[] = []
    for (const incoming of [undefined, 'two words', 'x'.repeat(129), '<script>']) {
      await fetch(`${app.origin}/healthz`, {
        headers: incoming === undefined ? {} : { 'x-request-id': incoming },
      })
      const [handled, access] = await linesOf(app.lines, 2)
      expect(access.reqId).toBe(handled.reqId)
      expect(access).not.toHaveProperty('clientReqId')
      expect(access).toMatchObject({ message: 'request errored', res: { statusCode: 500 } })
      ids.push(handled.reqId)
    }
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('writes no access line for a probe of /healthz or a scrape of /metrics that succeeds', async () => {
    const ok = await serve()
    const failing = await serve(503)
    for (const path of ['/healthz', '/healthz?live', '/metrics']) await fetch(ok.origin + path)
    await fetch(`${ok.origin}/pricing`)
    await fetch(`${failing.origin}/healthz`)
    const [, access] = await linesOf(failing.lines, 2)
    expect(access).toMatchObject({ req: { url: '/healthz' }, res: { statusCode: 503 } })
    await vi.waitFor(() => expect(ok.lines.filter((line) => line.req)).toHaveLength(1))
    expect(ok.lines.filter((line) => line.req)[0]).toMatchObject({ req: { url: '/pricing' } })
  })
})

describe('redactTarget', () => {
  // One-time token values go, however the name is spelled on the wire (a secret name without a
  // value is marked all the same); every other parameter stays as it came.
  it.each([
    [
      '/auth/confirm?token_hash=pkce_0123abcd&type=signup&redirectTo=%2Fdashboard%3Ftab%3D1',
      '/auth/confirm?token_hash=[redacted]&type=signup&redirectTo=%2Fdashboard%3Ftab%3D1',
    ],
    [
      '/auth/callback?code=9f8e7d&next=%2Fbilling',
      '/auth/callback?code=[redacted]&next=%2Fbilling',
    ],
    ['/verify?token=123456&token=654321', '/verify?token=[redacted]&token=[redacted]'],
    [
      '/a?TOKEN_HASH=x&%63ode=y&tok%65n=z',
      '/a?TOKEN_HASH=[redacted]&%63ode=[redacted]&tok%65n=[redacted]',
    ],
    // A malformed escape is kept as is.
    ['/a?code&x=%E0%A4%A', '/a?code=[redacted]&x=%E0%A4%A'],
    ['/dashboard', '/dashboard'],
    // Parameters that only contain a secret name.
    [
      '/auth/code?codes=1&postcode=2&redirectTo=%3Fcode%3D3',
      '/auth/code?codes=1&postcode=2&redirectTo=%3Fcode%3D3',
    ],
  ])('%s → %s', (target, redacted) => {
    expect(redactTarget(target)).toBe(redacted)
  })
})
