import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'

import { resetEnvForTests } from '~/env.server'
import * as stripeWebhook from '~/routes/api.webhooks.providera'
import * as settingsIndex from '~/routes/dashboard.settings._index'

import { logger } from './logger.server'
import { requestPolicy, requestPolicyMiddleware } from './request-policy.server'
import { responseHeaders } from './security-headers.server'

// The policy compares Origin with SITE_URL (local defaults in tests: http://localhost:5173).
const SITE = 'http://localhost:5173'
const EVIL = { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }

function request(method: string, path: string, headers: Record<string, string> = {}) {
  return new Request(`${SITE}${path}`, { method, headers })
}

beforeEach(() => {
  resetEnvForTests()
  vi.spyOn(logger, 'warn').mockImplementation(() => {})
})
afterEach(() => vi.restoreAllMocks())

describe('requestPolicy', () => {
  test.each(['/contact', '/dashboard/settings/account', '/contact.data', '/auth/confirm'])(
    'a cross-site post to the page %s gets a 403 page, not a Remix 500',
    async (path) => {
      const answer = requestPolicy(request('POST', path, EVIL))
      expect(answer?.status).toBe(403)
      expect(answer?.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
      expect(answer?.headers.get('Cache-Control')).toBe('no-store')
      expect(answer?.headers.get('Content-Security-Policy')).toContain("default-src 'none'")
      const page = await answer!.text()
      expect(page).toContain('<h1>Request refused</h1>')
      expect(page).toContain('sent from another website')
    },
  )

  const refused = 'Cross-site requests are not allowed'
  test.each<[string, object]>([
    // The contact API gets its own shape.
    ['/api/contact', { success: false, message: refused }],
    ['/api/checkout_sessions', { error: refused }],
    ['/api/customer_portal', { error: refused }],
    ['/sign-out', { error: refused }],
  ])('a cross-site post to %s gets %j', async (path, body) => {
    const answer = requestPolicy(request('POST', path, EVIL))
    expect(answer?.status).toBe(403)
    expect(await answer!.json()).toEqual(body)
  })
})

type Handler = (args: { request: Request; params: object; context: object }) => unknown

/** The request policy before route handlers as server.js runs them (headers set, or writeHead). */
async function serveThroughPolicy(routes: Record<string, Handler>, viaWriteHead = false) {
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', SITE)
    let response: unknown
    try {
      response = await routes[url.pathname]({
        request: new Request(url, { method: req.method }),
        params: {},
        context: {},
      })
    } catch (thrown) {
      response = thrown
    }
    if (!(response instanceof Response)) throw response
    const body = Buffer.from(await response.arrayBuffer())
    if (viaWriteHead) {
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(body)
      return
    }
    res.statusCode = response.status
    response.headers.forEach((value, name) => res.setHeader(name, value))
    res.end(body)
  }
  const server = createServer((req, res) =>
    responseHeaders(req, res, () =>
      requestPolicyMiddleware(req, res, () => {
        answer(req, res).catch(() => res.writeHead(500).end())
      }),
    ),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    fetch: (path: string, init?: RequestInit) =>
      fetch(`${origin}${path}`, { redirect: 'manual', ...init }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function expectSecured(response: Response, cacheControl = 'no-store') {
  expect(response.headers.get('Content-Security-Policy')).toBe(
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
  )
  expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff')
  expect(response.headers.get('X-Frame-Options')).toBe('DENY')
  expect(response.headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin')
  expect(response.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin')
  expect(response.headers.get('Permissions-Policy')).toContain('camera=()')
  expect(response.headers.get('Cache-Control')).toBe(cacheControl)
}

describe('requestPolicyMiddleware: every answer gets the headers', () => {
  // A route written tomorrow by someone who knows nothing of headers: plain Responses,
  // returned and thrown, a redirect (immutable headers), a 503.
  const forgetful: Record<string, Handler> = {
    '/api/new': () => Response.json({ ok: true }),
    '/api/thrown': () => {
      throw new Response('Not found', { status: 404 })
    },
    '/api/moved': () => Response.redirect(`${SITE}/elsewhere`, 302),
    '/api/down': () => Response.json({ error: 'later' }, { status: 503 }),
    '/api/cached': () => Response.json({}, { headers: { 'Cache-Control': 'private, max-age=5' } }),
    // Real resource routes, called as they are written (no wrapper of any kind).
    '/dashboard/settings': settingsIndex.loader as Handler,
    '/api/webhooks/providera': stripeWebhook.loader as Handler,
  }

  test.each([false, true])(
    'a route that does nothing about headers still sends them (writeHead: %s)',
    async (viaWriteHead) => {
      const server = await serveThroughPolicy(forgetful, viaWriteHead)
      try {
        const answers: Record<string, Response> = {}
        for (const path of Object.keys(forgetful)) {
          answers[path] = await server.fetch(path)
          const cached = path === '/api/cached' ? 'private, max-age=5' : 'no-store'
          expectSecured(answers[path], cached)
        }
        expect(await answers['/api/new'].json()).toEqual({ ok: true })
        expect(answers['/api/thrown'].status).toBe(404)
        expect(answers['/api/moved'].status).toBe(302)
        expect(answers['/api/down'].headers.get('Retry-After')).toBe('5')
        expect(answers['/dashboard/settings'].headers.get('Location')).toBe(
          '/dashboard/settings/general',
        )
        expect(answers['/api/webhooks/providera'].status).toBe(405)
        expect(answers['/api/webhooks/providera'].headers.get('Allow')).toBe('POST')
      } finally {
        await server.close()
      }
    },
  )

  test('a cross-site post is refused before the route runs, with the same headers', async () => {
    const action = vi.fn(() => Response.json({ ran: true }))
    const server = await serveThroughPolicy({ '/api/new': action, '/contact': action })
    try {
      const api = await server.fetch('/api/new', { method: 'POST', headers: EVIL })
      expect(api.status).toBe(403)
      expect(await api.json()).toEqual({ error: 'Cross-site requests are not allowed' })
      expectSecured(api)
      const page = await server.fetch('/contact', { method: 'POST', headers: EVIL })
      expect(page.status).toBe(403)
      expect(page.headers.get('Referrer-Policy')).toBe('strict-origin-when-cross-origin')
      expect(action).not.toHaveBeenCalled()
      const own = await server.fetch('/api/new', { method: 'POST', headers: { Origin: SITE } })
      expect(await own.json()).toEqual({ ran: true })
    } finally {
      await server.close()
    }
  })
})
