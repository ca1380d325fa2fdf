import { spawn } from 'node:child_process'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import { expect, test } from '@playwright/test'
import { E2E } from './ports'

/**
 * The production server entry (server.js, what `npm start` runs), over raw HTTP: per-client
 * rate limits by socket address, kept-alive connections, and a graceful stop on SIGTERM.
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
  await expect(async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`)
    expect(response.status).toBe(200)
  }).toPass({ timeout: 20_000 })
  return { child, exited }
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

/** Sends raw bytes on one socket and collects everything until the server closes it. */
function rawExchange(chunks: (string | Buffer)[], timeoutMs = 8_000) {
  return new Promise<{ text: string; closed: 'end' | 'reset' | 'timeout' }>((resolve) => {
    const socket = net.connect(PORT, '127.0.0.1')
    let text = ''
    const done = (closed: 'end' | 'reset' | 'timeout') => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ text, closed })
    }
    const timer = setTimeout(() => done('timeout'), timeoutMs)
    socket.on('data', (data) => (text += data.toString('latin1')))
    socket.on('end', () => done('end'))
    socket.on('error', () => done('reset'))
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return
        socket.write(chunk)
        await new Promise((r) => setTimeout(r, 5))
      }
    })
  })
}

test('a kept-alive connection keeps working after ordinary requests', async () => {
  const result = await rawExchange([
    'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
  ])
  expect(result.text.match(/HTTP\/1\.1 200 /g)).toHaveLength(2)
  expect(result.closed).toBe('end')
})

test('SIGTERM: the request in flight finishes, new connections are refused, exit 0', async () => {
  const port = PORT + 1
  const { child, exited } = await startServer(port)

  // A request whose body is still arriving when SIGTERM comes.
  const body = JSON.stringify(CONTACT)
  const answer = new Promise<number>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
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
      child.kill('SIGTERM')
      setTimeout(() => req.end(body.slice(10)), 300)
    }, 200)
  })
  expect(await answer).toBe(200)
  await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow()
  expect(await exited).toBe(0)
})
