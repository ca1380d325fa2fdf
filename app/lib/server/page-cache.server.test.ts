import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'

import type { EntryContext } from '@remix-run/node'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { AnonymousPageCache, offerSharedRender, unmarkSharedRender } from './page-cache.server'
import { requestContext } from './request-context.server'
import { createNonce } from './security-headers.server'

/** What the renderer would have: the leaf route's handle, through Remix's entry context. */
function entryContext(handle: unknown): EntryContext {
  return {
    staticHandlerContext: { matches: [{ route: { id: 'root' } }, { route: { id: 'page' } }] },
    routeModules: { root: {}, page: { handle } },
  } as unknown as EntryContext
}

interface Render {
  status?: number
  shared?: boolean
  setCookie?: boolean
  body?: (nonce: string) => string
  failAfterHead?: boolean
  leave?: boolean
}

let server: Server
let origin: string
let renders: string[]
let cache: AnonymousPageCache
let clock: number
let nextRender: Render

/** The production server's order: request store, cache, then a renderer as entry.server.tsx. */
function app(req: IncomingMessage, res: ServerResponse) {
  requestContext.run({ clientAddress: undefined }, () =>
    cache.serve(req, res, () => {
      renders.push(req.url ?? '')
      const { status = 200, shared = true, setCookie, body, failAfterHead, leave } = nextRender
      const nonce = createNonce()
      const headers = new Headers({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': `script-src 'nonce-${nonce}'`,
        'X-Frame-Options': 'DENY',
      })
      if (setCookie) headers.set('Set-Cookie', 'a=b')
      const stream = new PassThrough()
      offerSharedRender(stream, {
        context: entryContext({ sharedAnonymousRender: shared }),
        status,
        signedIn: false,
        nonce,
        headers,
      })
      res.statusCode = status
      headers.forEach((value, name) => res.setHeader(name, value))
      stream.pipe(res)
      const html = (body ?? page)(nonce)
      // Written in pieces, as React streams a page.
      stream.write(html.slice(0, 10))
      setImmediate(() => {
        if (failAfterHead) unmarkSharedRender()
        // A client that left: the answer's stream is destroyed before its end.
        if (leave) {
          stream.destroy()
          res.destroy()
        } else stream.end(Buffer.from(html.slice(10)))
      })
    }),
  )
}

const page = (nonce: string) =>
  `<!DOCTYPE html><html><body><p>The same for everyone</p><script nonce="${nonce}">go()</script>` +
  `<script nonce="${nonce}" type="module">import "/a.js"</script></body></html>`

beforeEach(async () => {
  renders = []
  clock = 1_000_000
  cache = new AnonymousPageCache(3, 60_000, () => clock)
  nextRender = {}
  server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve))
})

async function get(path: string, init: RequestInit = {}) {
  const response = await fetch(`${origin}${path}`, init)
  const body = await response.text()
  const csp = response.headers.get('content-security-policy') ?? ''
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1] ?? ''
  return { response, body, nonce }
}

describe('AnonymousPageCache', () => {
  it('answers the next anonymous visitors from one render, each with a fresh nonce', async () => {
    const first = await get('/pricing')
    const second = await get('/pricing')
    const third = await get('/pricing')
    expect(renders).toEqual(['/pricing'])
    expect(first.response.headers.get('server-timing')).toBeNull()
    expect(third.response.headers.get('server-timing')).toBe('page-cache;desc="hit"')
    for (const { response, body, nonce } of [first, second, third]) {
      expect(response.status).toBe(200)
      expect(response.headers.get('x-frame-options')).toBe('DENY')
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(body).toBe(page(nonce))
    }
    expect(new Set([first.nonce, second.nonce, third.nonce]).size).toBe(3)
    expect(second.response.headers.get('content-length')).toBe(
      String(Buffer.byteLength(second.body)),
    )
  })

  it('keeps each path and query apart', async () => {
    for (const path of ['/pricing', '/pricing?canceled=true', '/pricing?canceled=true', '/pricing'])
      await get(path)
    expect(renders).toEqual(['/pricing', '/pricing?canceled=true'])
  })

  it('renders for every visitor with a cookie or credentials, and keeps none of it', async () => {
    await get('/pricing', { headers: { cookie: 'sb-x-auth-token=abc' } })
    await get('/pricing', { headers: { cookie: 'theme=dark' } })
    await get('/pricing', { headers: { authorization: 'Bearer x' } })
    expect(renders).toHaveLength(3)
    expect(cache.size).toBe(0)
    await get('/pricing')
    await get('/pricing')
    expect(renders).toHaveLength(4)
  })

  it('never serves or keeps a post, a data request or a HEAD', async () => {
    for (const path of ['/pricing.data', '/pricing?_data=routes%2Fpricing'])
      for (let i = 0; i < 2; i++) await get(path)
    await get('/contact', { method: 'POST', body: 'x' })
    await get('/contact', { method: 'HEAD' })
    expect(renders).toHaveLength(6)
    expect(cache.size).toBe(0)
  })

  it('keeps only what the renderer offered: opted in, 200, no cookie set, whole', async () => {
    const refused: Render[] = [
      { shared: false },
      { status: 404 },
      { setCookie: true },
      { failAfterHead: true },
      { body: (nonce) => `<p nonce="${nonce}">${'x'.repeat(600 * 1024)}</p>` },
    ]
    for (const render of refused) {
      nextRender = render
      await get('/page')
      await get('/page')
    }
    nextRender = { leave: true }
    await get('/left').catch(() => undefined)
    await get('/left').catch(() => undefined)
    expect(renders.filter((path) => path === '/left')).toHaveLength(2)
    expect(renders).toHaveLength(refused.length * 2 + 2)
    expect(cache.size).toBe(0)
  })

  it('renders again once the render is a minute old', async () => {
    await get('/')
    clock += 59_999
    await get('/')
    clock += 1
    await get('/')
    expect(renders).toEqual(['/', '/'])
  })

  it('holds at most its number of pages, the oldest going first', async () => {
    for (const path of ['/a', '/b', '/c', '/d']) await get(path)
    expect(cache.size).toBe(3)
    await get('/a')
    await get('/d')
    expect(renders).toEqual(['/a', '/b', '/c', '/d', '/a'])
  })

  it('keeps nothing outside the request store or for a signed-in visitor', async () => {
    const offer = (signedIn: boolean, handle: unknown) => {
      const stream = new PassThrough()
      offerSharedRender(stream, {
        context: entryContext(handle),
        status: 200,
        signedIn,
        nonce: 'n',
        headers: new Headers({ 'Content-Security-Policy': "script-src 'nonce-n'" }),
      })
      stream.end('<p>n</p>')
    }
    const shared = { sharedAnonymousRender: true }
    const settled = () => new Promise((resolve) => setImmediate(resolve))
    expect(() => offer(false, shared)).not.toThrow()
    const req = { method: 'GET', headers: {}, url: '/p' } as IncomingMessage
    cache.serve(req, {} as ServerResponse, () => {
      offer(true, shared)
      offer(false, undefined)
    })
    await settled()
    expect(cache.size).toBe(0)
    cache.serve(req, {} as ServerResponse, () => offer(false, shared))
    await settled()
    expect(cache.size).toBe(1)
  })
})
