import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

import { createClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Database } from '../../database'
import { createTestDatabase } from '../../testing/database'
import { LOCAL_SERVICE_ROLE_KEY } from '../keys'
import { createRestHandler } from './handler'

/** The smallest node:http → fetch Request bridge, to check the handler over a real socket. */
async function toRequest(message: IncomingMessage, origin: string) {
  const chunks: Buffer[] = []
  for await (const chunk of message) chunks.push(chunk as Buffer)
  const headers = new Headers()
  for (const [key, value] of Object.entries(message.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value)
  }
  const hasBody = !['GET', 'HEAD'].includes(message.method ?? 'GET')
  return new Request(new URL(message.url ?? '/', origin), {
    method: message.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  })
}

let db: Database
let server: Server
let url: string

beforeAll(async () => {
  db = await createTestDatabase()
  const handler = createRestHandler({ database: db })
  server = createServer(async (message, reply) => {
    const response = await handler(await toRequest(message, url))
    reply.writeHead(response.status, Object.fromEntries(response.headers))
    reply.end(Buffer.from(await response.arrayBuffer()))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await db.close()
})

describe('over HTTP', () => {
  it('serves supabase-js writes, reads, HEAD counts and 204s', async () => {
    const supabase = createClient(url, LOCAL_SERVICE_ROLE_KEY, { auth: { persistSession: false } })
    const insert = await supabase
      .from('webhook_events')
      .insert({
        provider: 'stripe',
        event_id: 'evt_http',
        event_type: 'checkout.session.completed',
      })
      .select('event_id')
      .single()
    expect(insert).toMatchObject({ status: 201, data: { event_id: 'evt_http' }, error: null })
    const head = await supabase.from('webhook_events').select('*', { count: 'exact', head: true })
    expect(head).toMatchObject({ status: 200, count: 1, error: null })
    const remove = await supabase.from('webhook_events').delete().eq('event_id', 'evt_http')
    expect(remove).toMatchObject({ status: 204, data: null, error: null })
    const read = await supabase.from('webhook_events').select('event_id')
    expect(read.data).toEqual([])
  })
})

describe('robustness', () => {
  it('never throws: a broken database becomes a 500 in PostgREST shape', async () => {
    const broken = await createTestDatabase()
    await broken.close()
    const handler = createRestHandler({ database: broken })
    const response = await handler(
      new Request(`${url}/rest/v1/webhook_events`, { headers: { apikey: LOCAL_SERVICE_ROLE_KEY } }),
    )
    expect(response.status).toBe(500)
    const body = await response.json()
    expect(Object.keys(body)).toEqual(['code', 'details', 'hint', 'message'])
  })

  it('answers unsupported methods with 405', async () => {
    const response = await fetch(`${url}/rest/v1/webhook_events`, {
      method: 'PUT',
      headers: { apikey: LOCAL_SERVICE_ROLE_KEY, 'Content-Type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(405)
    expect((await response.json()).code).toBe('PGRST117')
  })
})
