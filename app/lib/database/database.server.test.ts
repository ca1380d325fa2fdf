import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as z from 'zod/mini'

import { getEnv, resetEnvForTests } from '~/env.server'

import { database } from './database.server'
import { rpc } from './rpc.server'

// The database gateway against a stand-in PostgREST: every failure is an error, never data.
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
/** PostgREST's error body. */
const refusal = (status: number, code: string, message: string) =>
  json(status, JSON.stringify({ code, message, details: null, hint: null }))

const call = (timeoutMs?: number) =>
  database({ timeoutMs }).rpc('session_is_active', { p_session_id: 's-1', p_user_id: 'u-1' })

describe('the service role', () => {
  it('posts the arguments to the RPC with the service-role key; the JSON answer is the data', async () => {
    answer = json(200, 'true')
    expect(await call()).toMatchObject({ data: true, error: null, status: 200 })
    const request = seen.at(-1)!
    expect(request.url).toBe('/rest/v1/rpc/session_is_active')
    expect(JSON.parse(request.body)).toEqual({ p_session_id: 's-1', p_user_id: 'u-1' })
    expect(request.headers.apikey).toMatch(/^eyJ/)
    expect(request.headers.authorization).toBe(`Bearer ${request.headers.apikey}`)
  })

  it("an error status is an error with PostgREST's code, and the status beside it", async () => {
    answer = refusal(503, 'PGRST001', 'Database client error. Retrying the connection.')
    const started = Date.now()
    expect(await call()).toMatchObject({
      data: null,
      error: { code: 'PGRST001', message: 'Database client error. Retrying the connection.' },
      status: 503,
    })
    // Not retried seconds apart (postgrest-js' own retries are off): the caller answers 503.
    expect(Date.now() - started).toBeLessThan(500)
  })

  it('a connection closed under a request is tried once more on a fresh one', async () => {
    let drops = 1
    answer = (request, response) => {
      if (drops-- > 0) request.socket.destroy()
      else json(200, 'true')(request, response)
    }
    const before = seen.length
    expect(await call()).toMatchObject({ data: true, error: null })
    expect(seen.length - before).toBe(2)
    // Dropped every time: an error naming it, after one retry.
    answer = (request) => request.socket.destroy()
    const again = seen.length
    const dropped = await call()
    expect(dropped.error?.message).toMatch(/fetch failed/)
    expect(seen.length - again).toBe(2)
  })

  it('no whole answer in time (none, or one that keeps trickling in) is an error naming it', async () => {
    answer = () => {}
    expect((await call(200)).error?.message).toMatch(/ETIMEDOUT/)
    let timer: ReturnType<typeof setInterval> | undefined
    answer = (_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).write('[')
      timer = setInterval(() => response.write('1,'), 50)
      response.on('close', () => clearInterval(timer))
    }
    const started = Date.now()
    const trickling = await call(300)
    clearInterval(timer)
    expect(trickling.error?.message).toMatch(/TimeoutError|ETIMEDOUT/)
    expect(Date.now() - started).toBeLessThan(2_000)
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
      expect(await call()).toMatchObject({ data: true, error: null })
      expect(seen.at(-1)?.url).toBe('/base/rest/v1/rpc/session_is_active')
    } finally {
      process.env.SUPABASE_URL = previous
      resetEnvForTests()
      other.closeAllConnections()
      await new Promise((resolve) => other.close(resolve))
    }
    answer = json(200, '"back"')
    expect(await call()).toMatchObject({ data: 'back', error: null })
  })
})

describe('as the signed-in user', () => {
  const asUser = { accessToken: 'eyJuser.token.sig' }
  const user = () => database({ asUser })

  it("sends the anon key and the user's own token, never the service-role key", async () => {
    answer = json(200, '{"total":0}')
    const overview = user().rpc('billing_overview', { p_page: 2, p_page_size: 10 }, { get: true })
    expect(await overview).toMatchObject({ data: { total: 0 }, error: null })
    // A GET with the arguments in the query.
    expect(seen.at(-1)).toMatchObject({
      url: '/rest/v1/rpc/billing_overview?p_page=2&p_page_size=10',
      body: '',
      headers: { authorization: 'Bearer eyJuser.token.sig', apikey: getEnv().SUPABASE_ANON_KEY },
    })
    expect(getEnv().SUPABASE_ANON_KEY).not.toBe(getEnv().SUPABASE_SERVICE_ROLE_KEY)
  })

  it('a refused token is an error with its code and status', async () => {
    answer = refusal(401, 'PGRST301', 'JWT expired')
    expect(await user().rpc('account_summary', undefined, { get: true })).toMatchObject({
      data: null,
      error: { code: 'PGRST301', message: 'JWT expired' },
      status: 401,
    })
  })
})

describe('rpc: answers typed by the migrations, jsonb ones checked', () => {
  const summary = z.object({ profile: z.nullable(z.object({ display_name: z.string() })) })

  it('a jsonb answer of the shape its schema states is returned as that shape', async () => {
    answer = json(200, '{"profile":{"display_name":"Ada"},"subscription":null}')
    const read = await rpc(
      'account_summary',
      {},
      { asUser: { accessToken: 'user-token' }, get: true, result: summary },
    )
    expect(read).toEqual({ profile: { display_name: 'Ada' } })
    const request = seen.at(-1)!
    expect([request.method, request.url]).toEqual(['GET', '/rest/v1/rpc/account_summary'])
    expect(request.headers.authorization).toBe('Bearer user-token')
  })

  it('a jsonb answer of another shape is an error naming the function, not data', async () => {
    answer = json(200, '{"profile":{"display_name":42}}')
    await expect(rpc('account_summary', {}, { result: summary })).rejects.toThrow(
      /^account_summary returned an unexpected value/,
    )
    answer = json(200, '"maybe"')
    const ledger = z.enum(['applied', 'duplicate'])
    await expect(
      rpc(
        'record_webhook_event',
        { p_provider: 'stripe', p_event_id: 'e', p_event_type: 't', p_occurred_at: null },
        { result: ledger },
      ),
    ).rejects.toThrow(/unexpected value: "maybe"/)
  })

  it('a failed call throws the database error, a 503 when the database cannot answer', async () => {
    answer = refusal(503, 'PGRST001', 'no connection')
    await expect(
      rpc('session_is_active', { p_session_id: 's', p_user_id: 'u' }),
    ).rejects.toMatchObject({ init: { status: 503 } })
  })
})
