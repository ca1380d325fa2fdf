import { spawn } from 'node:child_process'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'

import Stripe from 'stripe'

import { LOCAL_DEFAULTS } from '../../app/env.server'
import { PRODUCTION_ENV } from '../../app/env.test-support'
import { invoiceObject, stripeEvent } from '../integration/stripe-fixtures'
import {
  adminClient,
  createUser,
  deleteAfterTest,
  expect,
  PASSWORD,
  test,
  uniqueEmail,
  waitForMail,
} from './fixtures'
import { E2E } from './ports'

/**
 * The production server entry (server.js, what `npm start` runs), over raw HTTP: per-client
 * rate limits by socket address, kept-alive connections, a graceful stop on SIGTERM, and two
 * instances sharing one database.
 */

/** Starts server.js on `port` against the browser tests' local stack; resolves once it answers. */
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
  // Everything the server writes (read as it comes, so a full pipe never blocks the server).
  const output = { stdout: '', stderr: '' }
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()))
  await expect(async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthz?live`)
    expect(response.status).toBe(200)
  }).toPass({ timeout: 20_000 })
  return { child, exited, output }
}

// A server of its own: direct connections, no proxy (the default), so the socket's address
// is the client.
const PORT = E2E.appPort + 50
let direct: Awaited<ReturnType<typeof startServer>>
test.beforeAll(async () => {
  direct = await startServer(PORT)
})
test.afterAll(async () => {
  direct.child.kill('SIGTERM')
  await direct.exited
})

const CONTACT = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  company: 'Analytical Engines',
  message: 'A message that is long enough.',
}

/** A POST from a chosen loopback address (each address is another client). */
function postFrom(
  localAddress: string,
  pathname: string,
  body: string,
  port = PORT,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: pathname,
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

test('one client cannot use up the contact form for everyone', async () => {
  const statuses: number[] = []
  for (let i = 0; i < 6; i++)
    statuses.push((await postFrom('127.0.0.2', '/api/contact', JSON.stringify(CONTACT))).status)
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
  const other = await postFrom('127.0.0.3', '/api/contact', JSON.stringify(CONTACT))
  expect(other.status).toBe(200)
  expect(JSON.parse(other.body)).toMatchObject({ success: true })
})

test('a kept-alive connection keeps working after ordinary requests', async () => {
  const connection = await connect('127.0.0.1')
  await connection.write(HEALTH)
  expect(await connection.next()).toMatchObject({ status: 200 })
  await connection.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
  expect(await connection.next()).toMatchObject({ status: 200 })
  expect(await connection.ended()).toBe('end')
})

test('pages are compressed for a client that accepts gzip; webhook answers go out as they are', async () => {
  /** The raw answer's head (fetch would decode the body and hide the encoding). */
  const head = (pathname: string, method: string) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: PORT,
          path: pathname,
          method,
          headers: { 'accept-encoding': 'gzip', 'content-type': 'application/json' },
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }))
        },
      )
      req.on('error', reject)
      req.end(method === 'POST' ? '{}' : undefined)
    })
  expect(await head('/pricing', 'GET')).toMatchObject({
    status: 200,
    headers: { 'content-encoding': 'gzip' },
  })
  for (const pathname of ['/api/webhooks/stripe', '/api/webhooks/polar']) {
    const answer = await head(pathname, 'POST')
    expect(answer.status).toBe(400)
    expect(answer.headers['content-encoding']).toBeUndefined()
    expect(answer.headers['content-type']).toMatch(/^application\/json/)
    expect(answer.headers['cache-control']).toBe('no-store')
  }
})

test("public/ files are served with their cache and security headers; other paths are the app's", async () => {
  const favicon = await fetch(`http://127.0.0.1:${PORT}/favicon.svg`)
  expect(favicon.status).toBe(200)
  expect(favicon.headers.get('content-type')).toMatch(/^image\/svg\+xml/)
  expect(favicon.headers.get('cache-control')).toBe('public, max-age=3600')
  // An SVG opened on its own is a document: it runs nothing and is framed nowhere.
  expect(favicon.headers.get('content-security-policy')).toBe(
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
  )
  expect(favicon.headers.get('x-content-type-options')).toBe('nosniff')
  expect(favicon.headers.get('x-frame-options')).toBe('DENY')
  expect(favicon.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
  expect(await favicon.text()).toContain('<svg')
  // A hashed asset of the client build is cached for good.
  const html = await (await fetch(`http://127.0.0.1:${PORT}/`)).text()
  const asset = html.match(/\/assets\/[\w.-]+\.js/)?.[0]
  expect(asset).toBeTruthy()
  const script = await fetch(`http://127.0.0.1:${PORT}${asset}`)
  expect(script.status).toBe(200)
  expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
  expect(script.headers.get('x-content-type-options')).toBe('nosniff')
  // Not a file in public/: Remix answers (its 404 page), not the static file server.
  const missing = await fetch(`http://127.0.0.1:${PORT}/favicon.ico`)
  expect(missing.status).toBe(404)
  expect(missing.headers.get('content-type')).toMatch(/^text\/html/)
  expect(missing.headers.get('content-security-policy')).toBeTruthy()
})

test('a same-site post through a proxy that rewrites Host reaches the form, not an empty 500', async () => {
  // Origin is SITE_URL's, Host the proxy's upstream name (nginx's default `Host $proxy_host`).
  const response = await fetch(`http://127.0.0.1:${PORT}/forgot-password`, {
    method: 'POST',
    headers: { origin: E2E.siteUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=not-an-address',
  })
  expect(response.status).toBe(400)
  expect(await response.text()).toContain('valid email')
})

/**
 * A stand-in for the auth server in front of the local one that holds each sign-up for
 * `delayMs`, so the app's after-the-answer call is still running when SIGTERM comes.
 */
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
  return { proxy, url: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}` }
}

test('SIGTERM while a sign-up waits for the auth server: the account is made and mailed, then exit 0', async () => {
  const port = PORT + 3
  const site = `http://127.0.0.1:${port}`
  const auth = await slowSignUps(1_500)
  const { child, exited, output } = await startServer(port, {
    SITE_URL: site,
    SUPABASE_URL: auth.url,
  })
  const email = uniqueEmail('sigterm')
  try {
    const answer = await fetch(`${site}/sign-up`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: site },
      body: new URLSearchParams({ email, password: PASSWORD }),
    })
    expect(answer.headers.get('location')).toContain('/sign-up/confirm')
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(output.stdout).toContain('[server] stopped')
    expect((await waitForMail(email, 'signup')).to).toContain(email)
  } finally {
    auth.proxy.close()
    deleteAfterTest(email)
  }
})

// --- An answer before the body is read: a 413 closes the connection, never wedges or resets it ---

type RawResponse = { status: number; headers: Record<string, string>; body: string }
type Outcome = RawResponse | 'end' | 'reset' | 'timeout'

/** One response from the front of `buffer` (Content-Length or chunked), or null if incomplete. */
function parseResponse(buffer: Buffer): { response: RawResponse; rest: Buffer } | null {
  const headEnd = buffer.indexOf('\r\n\r\n')
  if (headEnd < 0) return null
  const [statusLine, ...lines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const status = Number(statusLine.split(' ')[1])
  let offset = headEnd + 4
  if (headers['transfer-encoding']?.includes('chunked')) {
    const parts: Buffer[] = []
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', offset)
      if (lineEnd < 0) return null
      const size = parseInt(buffer.subarray(offset, lineEnd).toString('latin1'), 16)
      if (buffer.length < lineEnd + 2 + size + 2) return null
      parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
      offset = lineEnd + 2 + size + 2
      if (size === 0) break
    }
    const body = Buffer.concat(parts).toString('utf8')
    return { response: { status, headers, body }, rest: buffer.subarray(offset) }
  }
  const length = Number(headers['content-length'] ?? 0)
  if (buffer.length < offset + length) return null
  const body = buffer.subarray(offset, offset + length).toString('utf8')
  return { response: { status, headers, body }, rest: buffer.subarray(offset + length) }
}

/** A kept-alive client connection over a raw socket, from a chosen loopback address. */
async function connect(localAddress: string) {
  const socket = net.connect({ port: PORT, host: '127.0.0.1', localAddress })
  let buffer: Buffer = Buffer.alloc(0)
  let closed: 'end' | 'reset' | null = null
  let wake = () => {}
  socket.on('data', (data) => {
    buffer = Buffer.concat([buffer, data])
    wake()
  })
  socket.on('end', () => {
    closed ??= 'end'
    wake()
  })
  socket.on('error', () => {
    closed ??= 'reset'
    wake()
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return {
    socket,
    get closed() {
      return closed
    },
    /** Writes unless the socket is gone (the server may have answered and closed already). */
    write(data: string | Buffer) {
      if (closed || socket.destroyed) return Promise.resolve(false)
      return new Promise<boolean>((resolve) => socket.write(data, (error) => resolve(!error)))
    },
    /** The next response, or how the connection ended without one, or a timeout. */
    next(timeoutMs = 2_000): Promise<Outcome> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish('timeout'), timeoutMs)
        const finish = (outcome: Outcome) => {
          clearTimeout(timer)
          wake = () => {}
          resolve(outcome)
        }
        wake = () => {
          const parsed = parseResponse(buffer)
          if (parsed) {
            buffer = parsed.rest
            finish(parsed.response)
          } else if (closed) finish(closed)
        }
        wake()
      })
    },
    /** Resolves how the server closed the connection, or 'timeout'. */
    ended(timeoutMs = 2_000): Promise<'end' | 'reset' | 'timeout'> {
      return new Promise((resolve) => {
        if (closed) return resolve(closed)
        const timer = setTimeout(() => resolve('timeout'), timeoutMs)
        socket.once('close', () => {
          clearTimeout(timer)
          resolve(closed ?? 'end')
        })
      })
    },
    close: () => socket.destroy(),
  }
}

type Connection = Awaited<ReturnType<typeof connect>>

const OVERSIZED = 200 * 1024 // over the contact form's 128 KiB cap

const contactHead = (headers: string) =>
  `POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${headers}\r\n`
const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'

/** An oversized JSON body with its Content-Length, written in pieces while the server answers. */
async function postOversizedWithLength(connection: Connection, bytes = OVERSIZED) {
  await connection.write(contactHead(`Content-Length: ${bytes}\r\n`))
  const piece = Buffer.alloc(16 * 1024, 'a')
  for (let sent = 0; sent < bytes; sent += piece.length)
    await connection.write(piece.subarray(0, Math.min(piece.length, bytes - sent)))
}

/** An oversized chunked body (no length): the server learns it is too large only by reading. */
async function postOversizedChunked(connection: Connection, bytes = OVERSIZED) {
  await connection.write(contactHead('Transfer-Encoding: chunked\r\n'))
  const piece = Buffer.alloc(16 * 1024, 'a')
  for (let sent = 0; sent < bytes; sent += piece.length) {
    const ok = await connection.write(
      Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]),
    )
    if (!ok) return
  }
  await connection.write('0\r\n\r\n')
}

/**
 * An answer given before a body too long to drop arrived: the whole 413 in the route's shape,
 * read before the connection ends (never a reset in its place), the connection ended promptly
 * by the server (a lingering close: what the client still sends is read and dropped for a
 * moment first), and a new connection from the same client answered.
 */
async function refusedThenNewConnection(connection: Connection, from: string) {
  const first = await connection.next()
  expect(first).toMatchObject({ status: 413 })
  expect(JSON.parse((first as RawResponse).body)).toEqual({
    success: false,
    message: 'Request body must be at most 131072 bytes',
  })
  expect(await connection.ended()).not.toBe('timeout')
  const next = await connect(from)
  await next.write(HEALTH)
  expect(await next.next()).toMatchObject({ status: 200 })
  next.close()
}

test('an oversized body with a length: the whole 413, the rest read and dropped, the connection kept', async () => {
  const connection = await connect('127.0.0.10')
  const sent = postOversizedWithLength(connection, 1024 * 1024)
  const first = await connection.next()
  expect(first).toMatchObject({ status: 413 })
  expect((first as RawResponse).headers.connection).not.toBe('close')
  expect(JSON.parse((first as RawResponse).body)).toEqual({
    success: false,
    message: 'Request body must be at most 131072 bytes',
  })
  await sent
  await connection.write(HEALTH)
  expect(await connection.next()).toMatchObject({ status: 200 })
  expect(connection.closed).toBeNull()
  connection.close()
})

test('a huge declared body: the 413 does not wait for the rest, and the socket is closed promptly', async () => {
  const connection = await connect('127.0.0.11')
  // Only the head and a little of a 50 MB body: the answer must not wait for the rest.
  await connection.write(contactHead(`Content-Length: ${50 * 1024 * 1024}\r\n`))
  await connection.write(Buffer.alloc(64 * 1024, 'a'))
  await refusedThenNewConnection(connection, '127.0.0.11')
})

test('an oversized chunked body past what is dropped: the whole 413 (not a reset), then a new connection answers', async () => {
  const connection = await connect('127.0.0.12')
  void postOversizedChunked(connection, 2 * 1024 * 1024)
  await refusedThenNewConnection(connection, '127.0.0.12')
})

test('a body read to its end keeps the connection alive', async () => {
  const connection = await connect('127.0.0.13')
  const body = JSON.stringify({ firstName: 'Ada' })
  await connection.write(contactHead(`Content-Length: ${Buffer.byteLength(body)}\r\n`) + body)
  const first = await connection.next()
  expect(first).toMatchObject({ status: 400 })
  expect((first as RawResponse).headers.connection).not.toBe('close')
  await connection.write(HEALTH)
  expect(await connection.next()).toMatchObject({ status: 200 })
  expect(connection.closed).toBeNull()
  connection.close()
})

test('under load no answer after an oversized post waits or is reset', async () => {
  test.setTimeout(40_000)
  // 10 clients on kept-alive sockets, each 5 oversized posts (with a length or chunked) and
  // 5 ordinary requests, interleaved; every request is answered within 2 s. Either kind of
  // post keeps its connection (the rest is read and dropped), so the next request follows on it.
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, async (_, client) => {
      const from = `127.0.1.${client + 1}`
      let connection = await connect(from)
      const statuses: number[] = []
      for (let i = 0; i < 10; i++) {
        if (connection.closed) connection = await connect(from)
        const oversized = i % 2 === 0
        const chunked = oversized && i % 4 !== 0
        let sending: Promise<unknown> = Promise.resolve()
        if (!oversized) void connection.write(HEALTH)
        else if (chunked) sending = postOversizedChunked(connection)
        else sending = postOversizedWithLength(connection)
        const answer = await connection.next()
        if (typeof answer === 'string') return { from, i, failed: answer }
        statuses.push(answer.status)
        // The rest of either kind of body (200 KiB) is read and dropped: the connection is kept.
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

test('a second instance on the same database: an event delivered to both at once is written once; on SIGTERM its request in flight finishes, new connections are refused, exit 0', async () => {
  // A second instance of the production build on the same database (through the stack).
  const other = await startServer(PORT + 1)
  const user = await createUser()
  try {
    const subscription = `sub_twice_${Date.now().toString(36)}`
    const invoice = invoiceObject({ subscription, userId: user.id })
    const event = stripeEvent('invoice.payment_succeeded', invoice)
    const body = JSON.stringify(event)
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
    })
    // The provider's retry racing its first delivery, on both instances, several times over.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        fetch(`http://127.0.0.1:${index % 2 === 0 ? PORT : PORT + 1}/api/webhooks/stripe`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': signature },
          body,
        }).then((response) => response.status),
      ),
    )
    expect(answers).toEqual(Array(12).fill(200))
    const admin = adminClient()
    const payments = await admin
      .from('payment_history')
      .select('id', { count: 'exact', head: true })
      .eq('provider_payment_id', invoice.id)
    expect(payments.count).toBe(1)
    const ledger = await admin
      .from('webhook_events')
      .select('event_id', { count: 'exact', head: true })
      .eq('provider', 'stripe')
      .eq('event_id', event.id)
    expect(ledger.count).toBe(1)
  } catch (error) {
    other.child.kill('SIGTERM')
    throw error
  }

  // A request whose body is still arriving when SIGTERM comes.
  const body = JSON.stringify(CONTACT)
  const answer = new Promise<number>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: PORT + 1,
        path: '/api/contact',
        method: 'POST',
        localAddress: '127.0.0.4',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', reject)
    req.write(body.slice(0, 10))
    setTimeout(() => {
      other.child.kill('SIGTERM')
      setTimeout(() => req.end(body.slice(10)), 300)
    }, 200)
  })
  expect(await answer).toBe(200)
  await expect(fetch(`http://127.0.0.1:${PORT + 1}/healthz`)).rejects.toThrow()
  expect(await other.exited).toBe(0)
})

// --- The access log, request time limits and the TRUSTED_PROXY_COUNT check ---

/** The JSON lines the server wrote (warnings and errors on stderr, the rest on stdout). */
function logLines(output: { stdout: string; stderr: string }) {
  return `${output.stdout}\n${output.stderr}`
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

test('the access log holds no one-time token: token_hash, code and token values are redacted', async () => {
  const paths = [
    '/auth/confirm?token_hash=pkce_secret_hash_1&type=signup&redirectTo=%2Fdashboard',
    '/auth/callback?code=secret-code-2&next=%2Fbilling',
    '/sign-in?token=secret-token-3',
  ]
  for (const pathname of paths) await fetch(`http://127.0.0.1:${PORT}${pathname}`)
  await expect(async () => {
    const requests = logLines(direct.output).map((line) => line.req)
    expect(requests).toContainEqual({
      method: 'GET',
      url: '/auth/confirm?token_hash=[redacted]&type=signup&redirectTo=%2Fdashboard',
    })
    expect(requests).toContainEqual({
      method: 'GET',
      url: '/auth/callback?code=[redacted]&next=%2Fbilling',
    })
    expect(requests).toContainEqual({ method: 'GET', url: '/sign-in?token=[redacted]' })
  }).toPass({ timeout: 5_000 })
  for (const secret of ['pkce_secret_hash_1', 'secret-code-2', 'secret-token-3'])
    expect(direct.output.stdout + direct.output.stderr).not.toContain(secret)
})

test('every line of a request carries our own id; a sane X-Request-Id is recorded beside it', async () => {
  // A cross-site post: the request policy logs its refusal, then the access line follows.
  const refuse = (requestId: string) =>
    fetch(`http://127.0.0.1:${PORT}/sign-in`, {
      method: 'POST',
      headers: {
        Origin: 'https://evil.example',
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Request-Id': requestId,
        Cookie: 'sb-access-token=secret-cookie-4',
      },
      body: 'email=a%40example.com',
    })
  expect((await refuse('lb-7f3a9c01')).status).toBe(403)
  expect((await refuse('two words')).status).toBe(403)
  await expect(async () => {
    const lines = logLines(direct.output).filter(
      (line) =>
        line.message === 'cross-site request refused' || line.message === 'request completed',
    )
    const access = lines.find((line) => line.clientReqId === 'lb-7f3a9c01')
    expect(access?.reqId).toMatch(/^[0-9a-f-]{36}$/)
    expect(lines.filter((line) => line.reqId === access?.reqId)).toHaveLength(2)
    expect(lines.filter((line) => line.reqId === 'lb-7f3a9c01')).toEqual([])
    const refusals = lines.filter((line) => line.message === 'cross-site request refused')
    const fresh = refusals.at(-1)?.reqId
    expect(fresh).toMatch(/^[0-9a-f-]{36}$/)
    expect(lines.filter((line) => line.reqId === fresh)).toHaveLength(2)
  }).toPass({ timeout: 5_000 })
  expect(direct.output.stdout + direct.output.stderr).not.toContain('secret-cookie-4')
})

test('a forwarded header on a server that trusts no proxy is reported once, naming the setting', async () => {
  const warning = 'TRUSTED_PROXY_COUNT is 0, but a request from'
  expect(direct.output.stderr).not.toContain(warning)
  for (let i = 0; i < 3; i++)
    await fetch(`http://127.0.0.1:${PORT}/pricing`, {
      headers: { 'x-forwarded-for': '203.0.113.7' },
    })
  await expect(() => expect(direct.output.stderr).toContain(warning)).toPass({ timeout: 5_000 })
  expect(direct.output.stderr.split(warning)).toHaveLength(2)
})

test('slow clients: headers and bodies have time limits, and a proxy that is not there is reported', async () => {
  const port = PORT + 2
  const limited = await startServer(port, {
    HEADERS_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '2000',
    TRUSTED_PROXY_COUNT: '1',
  })
  /** Writes `data` on a new socket and waits for the server to answer or close it. */
  const hold = (data: string) =>
    new Promise<{ text: string; ms: number }>((resolve) => {
      const started = Date.now()
      const socket = net.connect(port, '127.0.0.1', () => socket.write(data))
      let text = ''
      const timer = setTimeout(() => socket.destroy(), 10_000)
      socket.on('data', (chunk) => (text += chunk.toString('latin1')))
      socket.on('close', () => {
        clearTimeout(timer)
        resolve({ text, ms: Date.now() - started })
      })
      socket.on('error', () => {})
    })
  try {
    // TRUSTED_PROXY_COUNT=1, and this request came straight to the server, with no
    // X-Forwarded-For: reported once, with what it allows. Health checks are left out.
    expect(limited.output.stderr).not.toContain('TRUSTED_PROXY_COUNT is 1')
    await fetch(`http://127.0.0.1:${port}/healthz`)
    expect(limited.output.stderr).not.toContain('TRUSTED_PROXY_COUNT is 1')
    await fetch(`http://127.0.0.1:${port}/pricing`)
    await expect(() =>
      expect(limited.output.stderr).toContain(
        'TRUSTED_PROXY_COUNT is 1, but a request from 127.0.0.1 arrived with fewer than 1 X-Forwarded-For',
      ),
    ).toPass({ timeout: 5_000 })
    // Headers that never finish: 408 and closed after about HEADERS_TIMEOUT_MS.
    const head = await hold('GET /pricing HTTP/1.1\r\nHost: 127.0.0.1\r\n')
    expect(head.text).toMatch(/^HTTP\/1\.1 408 /)
    expect(head.ms).toBeLessThan(4_000)
    // A body that stops arriving: closed after about REQUEST_TIMEOUT_MS.
    const body = await hold(
      'POST /api/contact HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"first',
    )
    expect(body.ms).toBeGreaterThanOrEqual(1_500)
    expect(body.ms).toBeLessThan(5_000)
  } finally {
    limited.child.kill('SIGTERM')
    await limited.exited
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
    const connection = await connect('127.0.0.1')
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
  const port = PORT + 4
  // A production configuration: Remix's own error handler would print each stack to stderr.
  const production = { ...PRODUCTION_ENV, STRIPE_API_URL: '', POLAR_API_URL: '' }
  const server = await startServer(port, production)
  const at = (pathname: string, method = 'POST') =>
    fetch(`http://127.0.0.1:${port}${pathname}`, {
      method,
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: method === 'GET' ? undefined : 'a=1',
    })
  try {
    // Pages without an action, and the contact page's action for another method.
    for (const [pathname, method, allow] of [
      ['/', 'POST', 'GET, HEAD'],
      ['/pricing', 'POST', 'GET, HEAD'],
      ['/contact', 'PUT', 'GET, HEAD, POST'],
    ]) {
      const page = await at(pathname, method)
      expect(page.status, pathname).toBe(405)
      expect(page.headers.get('allow'), pathname).toBe(allow)
      expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    }
    // Resource routes without an action: their 405 in their own JSON, not Remix's.
    for (const pathname of ['/healthz', '/api/portal', '/auth/callback']) {
      const resource = await at(pathname)
      expect(resource.status, pathname).toBe(405)
      expect(resource.headers.get('allow'), pathname).toBe('GET, HEAD')
      expect(await resource.json()).toEqual({ error: 'Method not allowed' })
    }
    // An error Remix hands to the entry's handleError (as it does an action's throw): one line.
    expect((await at('/pricing?_data=root', 'GET')).status).toBe(200)
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
  }
  const output = `${server.output.stdout}\n${server.output.stderr}`.split('\n')
  expect(
    output.filter((line) => line && !line.startsWith('{') && !line.startsWith('[server]')),
  ).toEqual([])
  const failed = logLines(server.output).filter((line) => line.message === 'request failed')
  expect(failed).toHaveLength(1)
  expect((failed[0].err as { message: string }).message).toContain('_data requests')
})
