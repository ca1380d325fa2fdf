import { afterAll, beforeAll, describe, expect, test } from 'vitest'

import { PROVIDER_SETTINGS } from '../../app/billing/provider-settings'
import { createSignedInUser, loadServerBuild, startTestApp, type TestApp } from './harness'

// The request policy on every route of the server build's manifest (a new route is covered).
// Started before the build is loaded: the server entry validates the environment as it loads.
const app: TestApp = await startTestApp()
const build = await loadServerBuild()
let cookie: string
beforeAll(async () => {
  cookie = (await createSignedInUser(app)).cookie
})
afterAll(() => app.close())

/** A value of each parameter (a provider that runs), and a path for the splat. */
const PARAMS: Record<string, string> = {
  ':plan': 'pro',
  ':provider': PROVIDER_SETTINGS[0].id,
  '*': 'no-such-page',
}

/** The URL of each route (its parameters filled in), once per URL. */
function routeUrls() {
  const urls = new Map<string, string>()
  for (const route of Object.values(build.routes)) {
    const segments: string[] = []
    for (let at: typeof route | undefined = route; at; at = build.routes[at.parentId ?? '']) {
      if (at.path) segments.unshift(at.path)
    }
    const path = segments
      .join('/')
      .split('/')
      .filter(Boolean)
      .map((segment) => PARAMS[segment] ?? segment)
      .join('/')
    urls.set(`/${path}`, route.id)
  }
  return [...urls].map(([url, id]) => ({ url, id }))
}
const routes = routeUrls()

const COMMON = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
}

function expectSecurityHeaders(response: Response) {
  for (const [name, value] of Object.entries(COMMON)) expect(response.headers.get(name)).toBe(value)
  expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/)
}

const isPage = (response: Response) =>
  /^text\/html\b/.test(response.headers.get('content-type') ?? '')

test('the manifest holds every route file (sanity check of the discovery)', () => {
  expect(routes.length).toBeGreaterThanOrEqual(30)
  expect(routes.map((route) => route.url)).toEqual(
    expect.arrayContaining([
      '/',
      '/dashboard/settings/billing',
      '/api/webhooks/stripe',
      '/no-such-page',
    ]),
  )
})

describe.each(routes)('$url ($id)', ({ url }) => {
  test('a cross-site post is refused before the route runs (webhooks are exempt)', async () => {
    const response = await fetch(`${app.url}${url}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie,
        origin: 'https://attacker.example',
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'intent=delete-account',
    })
    expectSecurityHeaders(response)
    expect(response.headers.get('cache-control')).toBe('no-store')
    if (url.startsWith('/api/webhooks/')) {
      expect(response.status).toBe(400)
      return
    }
    expect(response.status).toBe(403)
    if (url.startsWith('/api/') || url === '/sign-out' || url === '/auth/callback') {
      expect(await response.json()).toMatchObject({
        [url === '/api/contact' ? 'message' : 'error']: 'Cross-site requests are not allowed',
      })
    } else {
      expect(isPage(response)).toBe(true)
      expect(await response.text()).toContain('Request refused')
    }
  })

  test.each([
    ['a visitor', () => ({})],
    ['a signed-in user', () => ({ cookie })],
  ])('a GET by %s carries the security headers and a cache policy', async (who, headers) => {
    const response = await fetch(`${app.url}${url}`, { redirect: 'manual', headers: headers() })
    await response.arrayBuffer()
    expectSecurityHeaders(response)
    const cache = response.headers.get('cache-control')
    if (!isPage(response)) expect(cache).toBe('no-store')
    else if (who === 'a signed-in user') expect(cache).toBe('private, no-store')
    // A visitor's page may be kept by caches unless it says otherwise; never shared privately.
    else expect(cache ?? '').not.toMatch(/private/)
  })

  test("a signed-in user's data request is never stored", async () => {
    const data = `${url === '/' ? '/_root' : url}.data`
    const response = await fetch(`${app.url}${data}`, { redirect: 'manual', headers: { cookie } })
    await response.arrayBuffer()
    expectSecurityHeaders(response)
    expect(response.headers.get('cache-control')).toBe('no-store')
  })
})
