import { spawn } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

import { PRODUCTION_ENV } from '../../app/env.test-support'
import { deleteAfterTest, expect, PASSWORD, test, uniqueEmail, waitForMail } from './fixtures'
import { E2E } from './ports'
import { connect, type Connection, type RawResponse } from './raw-http'

/** server.js over raw HTTP: limits by socket, 413s on kept-alive connections, timeouts, stops. */

async function startServer(port: number, extraEnv: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    [path.resolve('server.js'), path.resolve(process.env.BUILD_DIR ?? 'build', 'server/index.js')],
    {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        SITE_URL: E2E.siteUrl,
        SUPABASE_URL: E2E.supabaseUrl,
        STRIPE_API_URL: E2E.stripeUrl,
        POLAR_API_URL: E2E.polarUrl,
        TRUSTED_PROXY_COUNT: '0',
        ...extraEnv,
      },
      stdio: 'pipe',
    },
  )
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  // Read as it comes, so a full pipe never blocks the server.
  const output = { stdout: '', stderr: '' }
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()))
  await expect(async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthz?live`)
    expect(response.status).toBe(200)
  }).toPass({ timeout: 20_000 })
  return {
    child,
    exited,
    output,
    async stop() {
      child.kill('SIGTERM')
      return exited
    },
  }
}

// A server of its own, no proxy: the socket's address is the client.
const PORT = E2E.appPort + 50
let direct: Awaited<ReturnType<typeof startServer>>
test.beforeAll(async () => {
  direct = await startServer(PORT)
})
test.afterAll(() => direct.stop())

const CONTACT = JSON.stringify({
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  company: 'Analytical Engines',
  message: 'A message that is long enough.',
})
const OVERSIZED = 200 * 1024 // over the contact form's 128 KiB cap

const contactHead = (headers: string) =>
  `POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}\r\n`
const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'

async function postContact(from: string) {
  const connection = await connect(from, PORT)
  await connection.write(contactHead(`Content-Length: ${CONTACT.length}\r\n`) + CONTACT)
  const answer = (await connection.next()) as RawResponse
  connection.close()
  return answer
}

test('one client cannot use up the contact form for everyone', async () => {
  const statuses: number[] = []
  for (let i = 0; i < 6; i++) statuses.push((await postContact('127.0.0.2')).status)
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
  const other = await postContact('127.0.0.3')
  expect(other.status).toBe(200)
  expect(JSON.parse(other.body)).toMatchObject({ success: true })
})

test('static files, pages and webhook answers: cache, security and compression headers', async () => {
  const at = (pathname: string, init?: RequestInit) =>
    fetch(`http://127.0.0.1:${PORT}${pathname}`, init)
  // An SVG opened on its own is a document: it runs nothing and is framed nowhere.
  const favicon = await at('/favicon.svg')
  expect(favicon.status).toBe(200)
  expect(Object.fromEntries(favicon.headers)).toMatchObject({
    'content-type': expect.stringMatching(/^image\/svg\+xml/),
    'cache-control': 'public, max-age=3600',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
  })
  expect(await favicon.text()).toContain('<svg')
  // Pages are compressed (fetch asks for gzip); a hashed asset of the client build is cached for good.
  const page = await at('/pricing')
  expect(page.headers.get('content-encoding')).toBe('gzip')
  const asset = (await page.text()).match(/\/assets\/[\w.-]+\.js/)?.[0]
  expect(asset).toBeTruthy()
  const script = await at(asset!)
  expect(script.status).toBe(200)
  expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
  expect(script.headers.get('x-content-type-options')).toBe('nosniff')
  // Not a file in public/: Remix answers (its 404 page), not the static file server.
  const missing = await at('/favicon.ico')
  expect(missing.status).toBe(404)
  expect(missing.headers.get('content-type')).toMatch(/^text\/html/)
  expect(missing.headers.get('content-security-policy')).toBeTruthy()
  for (const pathname of ['/api/webhooks/stripe', '/api/webhooks/polar']) {
    const answer = await at(pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(answer.status).toBe(400)
    expect(answer.headers.get('content-encoding')).toBeNull()
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/)
    expect(answer.headers.get('cache-control')).toBe('no-store')
  }
})

/** An auth server that holds each sign-up for `delayMs`, so SIGTERM comes while it is asked. */
async function slowSignUps(delayMs: number) {
  const proxy = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (req.url?.startsWith('/auth/v1/signup')) await new Promise((r) => setTimeout(r, delayMs))
    // A caller that went away (the process exited) sent nothing that arrived.
    if (res.closed) return
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['host', 'content-length'].includes(name))
        headers.set(name, value)
    const answer = await fetch(`${E2E.supabaseUrl}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    })
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '' })
    res.end(Buffer.from(await answer.arrayBuffer()))
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return { proxy, url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }
}

test('SIGTERM: a request in flight and a sign-up waiting for the auth server finish, new connections are refused, exit 0', async () => {
  const port = PORT + 3
  const site = `http://127.0.0.1:${port}`
  // Longer than the request in flight takes to finish, so the stop waits for the sign-up too.
  const auth = await slowSignUps(3_000)
  const server = await startServer(port, { SITE_URL: site, SUPABASE_URL: auth.url })
  const email = uniqueEmail('sigterm')
  deleteAfterTest(email)
  try {
    const answer = await fetch(`${site}/sign-up`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: site },
      body: new URLSearchParams({ email, password: PASSWORD }),
    })
    expect(answer.headers.get('location')).toContain('/sign-up/confirm')
    // A request whose body is still arriving when SIGTERM comes (its connection then closes).
    const connection = await connect('127.0.0.4', port)
    await connection.write(
      contactHead(`Content-Length: ${CONTACT.length}\r\nConnection: close\r\n`) +
        CONTACT.slice(0, 10),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const exited = server.stop()
    await new Promise((resolve) => setTimeout(resolve, 300))
    await connection.write(CONTACT.slice(10))
    expect(await connection.next()).toMatchObject({ status: 200 })
    await expect(fetch(`${site}/healthz`)).rejects.toThrow()
    expect(await exited).toBe(0)
    expect(server.output.stdout).toContain('[server] stopped')
    expect((await waitForMail(email, 'signup')).to).toContain(email)
  } finally {
    auth.proxy.close()
  }
})

type Post = { bytes?: number; chunked?: boolean; stop?: number }
/** A contact post of `bytes` (with its length, or chunked) in pieces, of which `stop` are sent. */
async function postOversized(
  connection: Connection,
  { bytes = OVERSIZED, chunked = false, stop = bytes }: Post = {},
) {
  const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${bytes}`
  await connection.write(contactHead(`${framing}\r\n`))
  const piece = Buffer.alloc(16 * 1024, 'a')
  for (let sent = 0; sent < stop; sent += piece.length) {
    const part = piece.subarray(0, Math.min(piece.length, bytes - sent))
    const size = Buffer.from(`${part.length.toString(16)}\r\n`)
    const frame = chunked ? Buffer.concat([size, part, Buffer.from('\r\n')]) : part
    if (!(await connection.write(frame))) return
  }
  if (chunked) await connection.write('0\r\n\r\n')
}

const TOO_LARGE = { success: false, message: 'Request body must be at most 131072 bytes' }
const SHORT = JSON.stringify({ firstName: 'A' })

/**
 * A 413 given before the body is read arrives whole, never a reset; up to 1 MiB the rest is
 * dropped and the connection kept, past that it is ended (a lingering close).
 */
for (const { what, from, body, status, kept } of [
  { what: 'a body read to its end', from: '127.0.0.10', body: null, status: 400, kept: true },
  {
    what: 'an oversized body with a length, up to what is dropped',
    from: '127.0.0.11',
    body: { bytes: 1024 * 1024 },
    status: 413,
    kept: true,
  },
  {
    what: 'a huge declared body, only its start sent',
    from: '127.0.0.12',
    body: { bytes: 50 * 1024 * 1024, stop: 64 * 1024 },
    status: 413,
    kept: false,
  },
  {
    what: 'an oversized chunked body past what is dropped',
    from: '127.0.0.13',
    body: { bytes: 2 * 1024 * 1024, chunked: true },
    status: 413,
    kept: false,
  },
]) {
  test(`${what}: a ${status}, then the ${kept ? 'same' : 'next'} connection answers`, async () => {
    const connection = await connect(from, PORT)
    const sent = body
      ? postOversized(connection, body)
      : connection.write(contactHead(`Content-Length: ${SHORT.length}\r\n`) + SHORT)
    const first = (await connection.next()) as RawResponse
    expect(first).toMatchObject({ status })
    if (status === 413) expect(JSON.parse(first.body)).toEqual(TOO_LARGE)
    if (kept) {
      expect(first.headers.connection).not.toBe('close')
      await sent
    } else expect(['end', 'reset']).toContain(await connection.next())
    const next = kept ? connection : await connect(from, PORT)
    await next.write(HEALTH)
    expect(await next.next()).toMatchObject({ status: 200 })
    expect(next.closed).toBeNull()
    next.close()
  })
}

test('under load no answer after an oversized post waits or is reset', async () => {
  test.setTimeout(40_000)
  // 10 clients, each 5 oversized posts and 5 requests interleaved on one kept-alive socket.
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, async (_, client) => {
      const from = `127.0.1.${client + 1}`
      let connection = await connect(from, PORT)
      const statuses: number[] = []
      for (let i = 0; i < 10; i++) {
        if (connection.closed) connection = await connect(from, PORT)
        const oversized = i % 2 === 0
        const chunked = oversized && i % 4 !== 0
        const sending = oversized
          ? postOversized(connection, { chunked })
          : connection.write(HEALTH)
        const answer = await connection.next()
        if (typeof answer === 'string') return { from, i, failed: answer }
        statuses.push(answer.status)
        if (answer.headers.connection?.toLowerCase() === 'close')
          return { from, i, failed: 'Connection: close' }
        await sending
      }
      connection.close()
      return { from, statuses }
    }),
  )
  for (const outcome of outcomes) {
    expect(outcome).not.toHaveProperty('failed')
    const statuses = (outcome as { statuses: number[] }).statuses
    expect(statuses.filter((_, i) => i % 2 === 1)).toEqual([200, 200, 200, 200, 200])
    // Over the cap (413), or over this client's contact-form budget (429): either is an answer.
    for (const status of statuses.filter((_, i) => i % 2 === 0))
      expect([413, 429]).toContain(status)
  }
})

test('slow clients: headers and bodies have time limits', async () => {
  const port = PORT + 2
  const limited = await startServer(port, {
    HEADERS_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '2000',
  })
  const hold = async (data: string) => {
    const started = Date.now()
    const connection = await connect('127.0.0.1', port)
    await connection.write(data)
    const answer = await connection.next(10_000)
    expect(['end', 'reset']).toContain(await connection.next(10_000))
    return { answer, ms: Date.now() - started }
  }
  try {
    const head = await hold('GET /pricing HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    expect(head.answer).toMatchObject({ status: 408 })
    expect(head.ms).toBeLessThan(4_000)
    const body = await hold(contactHead('Content-Length: 1000\r\n') + '{"first')
    expect(body.ms).toBeGreaterThanOrEqual(1_500)
    expect(body.ms).toBeLessThan(5_000)
  } finally {
    await limited.stop()
  }
})

test('a request-target or Host that does not parse gets 400 (not a webhook exemption), a path that does not decode 404, and nothing but log lines reaches stderr', async () => {
  const foreign = 'Origin: https://evil.example'
  const requests = [
    // A URL parser reads `//evil/api/webhooks/stripe` as host `evil`, path /api/webhooks/stripe.
    [`POST //evil/api/webhooks/stripe HTTP/1.1\r\nHost: localhost\r\n${foreign}`, 400],
    [`POST /\\evil/api/webhooks/stripe HTTP/1.1\r\nHost: localhost\r\n${foreign}`, 400],
    [`POST http://evil/api/webhooks/stripe HTTP/1.1\r\nHost: localhost\r\n${foreign}`, 400],
    [`POST /api/contact HTTP/1.1\r\nHost: local host\r\n${foreign}`, 400],
    ['GET / HTTP/1.1\r\nHost: local host', 400],
    // Percent-encodings that decode to nothing (Remix would warn on stderr): the 404 page.
    ['GET /%E0%A4%A HTTP/1.1\r\nHost: localhost', 404],
    ['GET /sign-in%ZZ HTTP/1.1\r\nHost: localhost', 404],
  ] as const
  for (const [head, status] of requests) {
    const connection = await connect('127.0.0.1', PORT)
    await connection.write(`${head}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
    const answer = await connection.next()
    expect(answer, head).toMatchObject({ status })
    if (head.startsWith('POST'))
      expect(JSON.parse((answer as RawResponse).body), head).toEqual({ error: 'Bad request' })
    connection.close()
  }
  const raw = direct.output.stderr.split('\n').filter((line) => line && !line.startsWith('{'))
  expect(raw).toEqual([])
})

test('in production a route error is one log line, and a method no route serves a 405 with Allow', async () => {
  // A production configuration: Remix's own error handler would print each stack to stderr.
  const port = PORT + 4
  const server = await startServer(port, {
    ...PRODUCTION_ENV,
    STRIPE_API_URL: '',
    POLAR_API_URL: '',
  })
  const at = (pathname: string, method = 'POST') =>
    fetch(`http://127.0.0.1:${port}${pathname}`, {
      method,
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: method === 'GET' ? undefined : 'a=1',
    })
  try {
    // Resource routes without an action: their 405 in their own JSON, not Remix's.
    for (const [pathname, method, allow, type] of [
      ['/', 'POST', 'GET, HEAD', 'text/html'],
      ['/pricing', 'POST', 'GET, HEAD', 'text/html'],
      ['/contact', 'PUT', 'GET, HEAD, POST', 'text/html'],
      ['/healthz', 'POST', 'GET, HEAD', 'application/json'],
      ['/api/portal', 'POST', 'GET, HEAD', 'application/json'],
      ['/auth/callback', 'POST', 'GET, HEAD', 'application/json'],
    ]) {
      const answer = await at(pathname, method)
      expect([answer.status, answer.headers.get('allow')], pathname).toEqual([405, allow])
      expect(answer.headers.get('content-type'), pathname).toMatch(new RegExp(`^${type}`))
      if (type === 'application/json')
        expect(await answer.json()).toEqual({ error: 'Method not allowed' })
    }
    // An error Remix hands to the entry's handleError (as it does an action's throw): one line.
    expect((await at('/pricing?_data=root', 'GET')).status).toBe(200)
  } finally {
    await server.stop()
  }
  const lines = `${server.output.stdout}\n${server.output.stderr}`.split('\n').filter(Boolean)
  expect(lines.filter((line) => !line.startsWith('{') && !line.startsWith('[server]'))).toEqual([])
  const failed = lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { message: string; err?: { message: string } })
    .filter((line) => line.message === 'request failed')
  expect(failed).toHaveLength(1)
  expect(failed[0].err?.message).toContain('_data requests')
})
