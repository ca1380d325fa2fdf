import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getEnv, resetEnvForTests } from '~/env.server'
import { postgrestRpc, postgrestSelect } from './postgrest-rpc.server'

/**
 * The plain RPC request, against a stand-in PostgREST: what goes on the wire, and that every
 * failure comes back as an error in supabase-js's shape (never as data).
 */
let server: http.Server
let answer: (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void
const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] =
  []

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      seen.push({ method: request.method, url: request.url, headers: request.headers, body })
      answer(request, response, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  process.env.SUPABASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  resetEnvForTests()
})
afterAll(async () => {
  delete process.env.SUPABASE_URL
  resetEnvForTests()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const json = (status: number, text: string) => (_: unknown, response: http.ServerResponse) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(text)

const call = () =>
  postgrestRpc<unknown>('session_is_active', { p_session_id: 's-1', p_user_id: 'u-1' })

describe('postgrestRpc', () => {
  it('posts the arguments to the RPC with the service-role key; the JSON answer is the data', async () => {
    answer = json(200, 'true')
    expect(await call()).toEqual({ data: true, error: null })
    const request = seen.at(-1)!
    expect(request.url).toBe('/rest/v1/rpc/session_is_active')
    expect(JSON.parse(request.body)).toEqual({ p_session_id: 's-1', p_user_id: 'u-1' })
    expect(request.headers.apikey).toMatch(/^eyJ/)
    expect(request.headers.authorization).toBe(`Bearer ${request.headers.apikey}`)
    answer = json(200, '"applied"')
    expect(await call()).toEqual({ data: 'applied', error: null })
  })

  it("an error status is an error with PostgREST's code and the status, even with a body that says true", async () => {
    answer = json(500, 'true')
    expect(await call()).toMatchObject({ data: null, error: { status: 500 } })
    answer = json(
      503,
      '{"code":"PGRST001","message":"Database client error. Retrying the connection.","details":null,"hint":null}',
    )
    expect(await call()).toEqual({
      data: null,
      error: {
        code: 'PGRST001',
        message: 'Database client error. Retrying the connection.',
        details: null,
        hint: null,
        status: 503,
      },
    })
  })

  it('a 200 that is not JSON is an error, not data', async () => {
    answer = json(200, '<html>gateway</html>')
    expect(await call()).toMatchObject({ data: null, error: { status: 200 } })
  })

  it('a dropped connection or no answer in time is an error naming it', async () => {
    answer = (request) => request.socket.destroy()
    const dropped = await call()
    expect(dropped.error?.message).toMatch(/other side closed|socket hang up|ECONNRESET/)
    answer = () => {}
    const slow = await postgrestRpc('session_is_active', {}, { timeoutMs: 200 })
    expect(slow.error?.message).toMatch(/ETIMEDOUT/)
  })

  it('the timeout is for the whole answer: one that keeps trickling in is cut off too', async () => {
    let timer: ReturnType<typeof setInterval> | undefined
    answer = (_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).write('[')
      timer = setInterval(() => response.write('1,'), 50)
      response.on('close', () => clearInterval(timer))
    }
    const started = Date.now()
    const trickling = await postgrestRpc('session_is_active', {}, { timeoutMs: 300 })
    clearInterval(timer)
    expect(trickling.error?.message).toMatch(/ETIMEDOUT/)
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('concurrent calls share kept-alive connections rather than opening one each', async () => {
    answer = json(200, 'true')
    let opened = 0
    const count = () => opened++
    server.on('connection', count)
    try {
      for (let round = 0; round < 4; round++) {
        const results = await Promise.all(Array.from({ length: 20 }, call))
        expect(results.every((result) => result.data === true)).toBe(true)
        // A connection is free again a moment after its answer is read, as between requests.
        await new Promise((resolve) => setImmediate(resolve))
      }
      // Kept: 80 calls over at most 20 connections (one per call in flight at most).
      expect(opened).toBeLessThanOrEqual(20)
    } finally {
      server.off('connection', count)
    }
  })

  it('takes host, port and path from SUPABASE_URL (an IPv6 literal, a path prefix)', async () => {
    const other = http.createServer((request, response) => {
      seen.push({ url: request.url, headers: request.headers, body: '' })
      response.writeHead(200, { 'content-type': 'application/json' }).end('true')
    })
    await new Promise<void>((resolve) => other.listen(0, '::1', resolve))
    const previous = process.env.SUPABASE_URL
    try {
      process.env.SUPABASE_URL = `http://[::1]:${(other.address() as AddressInfo).port}/base/`
      resetEnvForTests()
      expect(await call()).toEqual({ data: true, error: null })
      expect(seen.at(-1)?.url).toBe('/base/rest/v1/rpc/session_is_active')
    } finally {
      process.env.SUPABASE_URL = previous
      resetEnvForTests()
      other.closeAllConnections()
      await new Promise((resolve) => other.close(resolve))
    }
    answer = json(200, '"back"')
    expect(await call()).toEqual({ data: 'back', error: null })
  })
})

describe('as the signed-in user', () => {
  const asUser = { accessToken: 'eyJuser.token.sig' }

  it("sends the anon key and the user's own token, never the service-role key", async () => {
    answer = json(200, '{"total":0}')
    expect(
      await postgrestRpc('billing_overview', { p_page: 2, p_page_size: 10 }, { get: true, asUser }),
    ).toEqual({ data: { total: 0 }, error: null })
    const request = seen.at(-1)!
    // A GET with the arguments in the query, as supabase-js' `{ get: true }`.
    expect(request.url).toBe('/rest/v1/rpc/billing_overview?p_page=2&p_page_size=10')
    expect(request.body).toBe('')
    expect(request.headers.authorization).toBe('Bearer eyJuser.token.sig')
    expect(request.headers.apikey).toBe(getEnv().SUPABASE_ANON_KEY)
    expect(request.headers.apikey).not.toBe(getEnv().SUPABASE_SERVICE_ROLE_KEY)
  })

  it('reads rows of a table with PostgREST filters; the rows are the data', async () => {
    answer = json(200, '[{"display_name":"Ada"}]')
    expect(
      await postgrestSelect(
        'user_profiles',
        { select: 'display_name,avatar_path', user_id: 'eq.u-1&x=1' },
        { asUser },
      ),
    ).toEqual({ data: [{ display_name: 'Ada' }], error: null })
    const request = seen.at(-1)!
    expect(request.method).toBe('GET')
    // Values are encoded: a filter value cannot add a parameter.
    expect(request.url).toBe(
      '/rest/v1/user_profiles?select=display_name%2Cavatar_path&user_id=eq.u-1%26x%3D1',
    )
    expect(request.headers.authorization).toBe('Bearer eyJuser.token.sig')
  })

  it("a refused token or an outage is an error in supabase-js' shape", async () => {
    answer = json(401, '{"code":"PGRST301","message":"JWT expired","details":null,"hint":null}')
    expect(await postgrestSelect('user_subscriptions', { select: '*' }, { asUser })).toEqual({
      data: null,
      error: { code: 'PGRST301', message: 'JWT expired', details: null, hint: null, status: 401 },
    })
    answer = (request) => request.socket.destroy()
    const dropped = await postgrestSelect('user_subscriptions', { select: '*' }, { asUser })
    expect(dropped.error?.message).toMatch(/other side closed|socket hang up|ECONNRESET/)
  })
})
