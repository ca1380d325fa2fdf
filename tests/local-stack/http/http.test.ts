import { describe, expect, it } from 'vitest'

import {
  BodyTooLarge,
  FaultRegistry,
  listen,
  matchRoute,
  parseJsonObject,
  readText,
  route,
  RouteTable,
} from './index'

describe('routes', () => {
  it('matches :params, a trailing * and regular expressions, URL-decoded, first match wins', () => {
    const routes = [
      route('GET', '/object/:bucket/*', 'object'),
      route('GET', /^\/v1\/customers\/([^/]+)$/, 'customer'),
      route('POST', '/a.b', 'literal'),
    ]
    expect(matchRoute(routes, 'GET', '/object/avatars/u%201/x.png').found).toEqual({
      handler: 'object',
      params: { bucket: 'avatars', rest: 'u 1/x.png' },
      values: ['avatars', 'u 1/x.png'],
    })
    expect(matchRoute(routes, 'GET', '/v1/customers/cus_1').found?.values).toEqual(['cus_1'])
    expect(matchRoute(routes, 'POST', '/aXb').found).toBeUndefined()
    expect(matchRoute(routes, 'DELETE', '/a.b')).toEqual({ pathMatched: true })
    expect(matchRoute(routes, 'HEAD', '/object/a/b').found).toBeUndefined()
    expect(matchRoute(routes, 'HEAD', '/object/a/b', { headAsGet: true }).found?.handler).toBe(
      'object',
    )
  })

  it('lists a table in insertion order', () => {
    const table = new RouteTable<string>().on('GET', '/a/:id', 'a').on('POST', '/b', 'b')
    expect(table.describe()).toEqual(['GET /a/:id', 'POST /b'])
    expect(table.match('GET', '/a/1').found?.params).toEqual({ id: '1' })
  })
})

describe('bodies', () => {
  async function post(body: string, limit: number) {
    const server = await listen(
      undefined,
      async (req, res) => {
        const answer = await readText(req, limit).then(
          (text) => `ok ${text.length}`,
          (error: unknown) => (error instanceof BodyTooLarge ? 'too large' : 'error'),
        )
        res.end(answer)
      },
      () => {},
    )
    try {
      return await (await fetch(`http://127.0.0.1:${server.port}`, { method: 'POST', body })).text()
    } finally {
      await server.close()
    }
  }

  it('reads up to the limit and refuses more', async () => {
    expect(await post('x'.repeat(10), 10)).toBe('ok 10')
    expect(await post('x'.repeat(11), 10)).toBe('too large')
  })

  it('reads a JSON object, or {} for anything else', () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ a: 1 })
    expect(parseJsonObject('')).toEqual({})
    expect(parseJsonObject('[1]')).toEqual({})
    expect(parseJsonObject('{')).toEqual({})
  })
})

describe('FaultRegistry', () => {
  it('counts down the first matching fault by method and path prefix or ^regex', () => {
    const faults = new FaultRegistry<{ method?: string; path: string; status: number }>()
    faults.add({ method: 'post', path: '/v1/checkouts', status: 500 }, 2)
    faults.add({ path: '^/v1/orders/[^/]+$', status: 404 }, 1)
    expect(faults.take('GET', '/v1/checkouts/')).toBeUndefined()
    expect(faults.take('POST', '/v1/checkouts/')).toMatchObject({ remaining: 1 })
    expect(faults.take('POST', '/v1/checkouts/')?.fault.method).toBe('POST')
    expect(faults.take('GET', '/v1/orders/1/invoice')).toBeUndefined()
    expect(faults.take('GET', '/v1/orders/1')?.fault.status).toBe(404)
    expect(faults.take('GET', '/v1/orders/1')).toBeUndefined()
  })
})
