import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetEnvForTests } from '~/env.server'
import { isSessionActive } from './session-check.server'

/**
 * The session check's request, against a stand-in PostgREST: what goes on the wire, and that
 * anything but a 200 `true` is never taken as "the session is active".
 */
let server: http.Server
let answer: (request: http.IncomingMessage, response: http.ServerResponse, body: string) => void
const seen: { url?: string; headers: http.IncomingHttpHeaders; body: string }[] = []

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      seen.push({ url: request.url, headers: request.headers, body })
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

describe('isSessionActive', () => {
  it('posts the arguments to the RPC with the service-role key; true and false come back', async () => {
    answer = json(200, 'true')
    expect(await isSessionActive('s-1', 'u-1')).toBe(true)
    const request = seen.at(-1)!
    expect(request.url).toBe('/rest/v1/rpc/session_is_active')
    expect(JSON.parse(request.body)).toEqual({ p_session_id: 's-1', p_user_id: 'u-1' })
    expect(request.headers.apikey).toMatch(/^eyJ/)
    expect(request.headers.authorization).toBe(`Bearer ${request.headers.apikey}`)
    answer = json(200, 'false')
    expect(await isSessionActive('s-1', 'u-1')).toBe(false)
  })

  it('rejects on an error status, even with a body that says true', async () => {
    answer = json(500, 'true')
    await expect(isSessionActive('s-1', 'u-1')).rejects.toThrow(/answered 500/)
    answer = json(401, '{"message":"JWT expired"}')
    await expect(isSessionActive('s-1', 'u-1')).rejects.toThrow(/answered 401/)
  })

  it('rejects when the connection drops without an answer', async () => {
    answer = (request) => request.socket.destroy()
    await expect(isSessionActive('s-1', 'u-1')).rejects.toThrow()
  })
})
