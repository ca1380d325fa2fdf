import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { getEnv } from '~/env.server'
import { MemoryRateLimitStore, setRateLimitStore } from '~/lib/rate-limit.server'
import { logger } from '~/lib/logger.server'

/**
 * Every route module that exports an action, found on disk (a new action is covered the day
 * it is added): a cross-site post is refused with 403 in the route's own error shape before
 * anything runs, and the same post from our own origin reaches the action.
 */
const ROUTES_DIR = path.dirname(fileURLToPath(import.meta.url))
const files = readdirSync(ROUTES_DIR)
  .filter((name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))
  .sort()

type Handler = (args: { request: Request; params: object; context: object }) => unknown
interface RouteModule {
  action?: Handler
  default?: unknown
}

/** The URL path a flat-routes file name serves (enough for these tests). */
function urlPath(file: string) {
  const segments = file
    .replace(/\.tsx?$/, '')
    .split('.')
    .filter((segment) => segment !== '_index')
    .map((segment) => (segment === '$' ? 'anything' : segment.replace(/_$/, '')))
  return `/${segments.join('/')}`
}

const modules: { file: string; path: string; module: RouteModule }[] = []
for (const file of files) {
  const module = (await import(/* @vite-ignore */ path.join(ROUTES_DIR, file))) as RouteModule
  if (module.action) modules.push({ file, path: urlPath(file), module })
}
const pageAndApiActions = modules.filter((entry) => !entry.file.startsWith('api.webhooks.'))

beforeAll(() => {
  vi.spyOn(logger, 'warn').mockImplementation(() => {})
  vi.spyOn(logger, 'error').mockImplementation(() => {})
  vi.spyOn(logger, 'info').mockImplementation(() => {})
  setRateLimitStore(new MemoryRateLimitStore())
})

afterAll(() => {
  vi.restoreAllMocks()
  setRateLimitStore(undefined)
})

async function post(entry: (typeof modules)[number], headers: Record<string, string>) {
  const request = new Request(`http://localhost${entry.path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ intent: 'password', email: 'not-an-email' }),
  })
  try {
    const result = await entry.module.action!({ request, params: {}, context: {} })
    return { response: result as Response, thrown: false }
  } catch (thrown) {
    if (thrown instanceof Response) return { response: thrown, thrown: true }
    throw thrown
  }
}

const CROSS_SITE: [string, Record<string, string>][] = [
  ['a foreign Origin', { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }],
  ['a sibling subdomain', { Origin: 'http://evil.localhost:5173', 'Sec-Fetch-Site': 'same-site' }],
  ['Origin: null', { Origin: 'null' }],
  ['only Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
]

test('finds the actions (sanity check of the discovery)', () => {
  const found = modules.map((entry) => entry.file)
  expect(found).toEqual(
    expect.arrayContaining([
      'sign-in.tsx',
      'sign-up.tsx',
      'forgot-password.tsx',
      'reset-password.tsx',
      'contact.tsx',
      'api.contact.ts',
      'api.checkout_sessions.ts',
      'api.customer_portal.ts',
      'sign-out.ts',
      'dashboard.settings.account.tsx',
      'dashboard.settings.billing.tsx',
      'dashboard.settings.general.tsx',
      'dashboard.settings.notifications.tsx',
      'api.webhooks.stripe.ts',
      'api.webhooks.polar.ts',
    ]),
  )
})

describe.each(pageAndApiActions.map((entry) => [entry.file, entry] as const))(
  '%s',
  (_file, route) => {
    test.each(CROSS_SITE)('a cross-site post (%s) is refused with 403', async (_name, headers) => {
      const { response, thrown } = await post(route, headers)
      expect(response.status).toBe(403)
      if (route.module.default) {
        // A page: thrown, so the route's error boundary renders the 403 page.
        expect(thrown).toBe(true)
        expect(await response.text()).toMatch(/another website/)
      } else {
        // An API route: its own JSON error shape.
        expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
        const body = await response.json()
        expect(body).toEqual(
          route.file === 'api.contact.ts'
            ? { success: false, message: 'Cross-site requests are not allowed' }
            : { error: 'Cross-site requests are not allowed' },
        )
      }
    })

    test.each([
      ['our Origin', () => ({ Origin: getEnv().SITE_URL, 'Sec-Fetch-Site': 'same-origin' })],
      ['no Origin and no Sec-Fetch-Site (not a browser)', () => ({})],
    ])('a post with %s reaches the action', async (_name, headers) => {
      const { response } = await post(route, headers())
      expect(response.status).not.toBe(403)
    })
  },
)

describe.each(['api.webhooks.stripe.ts', 'api.webhooks.polar.ts'])('%s (exempt)', (file) => {
  test('a post from anywhere reaches the signature check', async () => {
    const route = modules.find((candidate) => candidate.file === file)!
    const { response } = await post(
      { ...route, path: `/api/webhooks/${file.split('.')[2]}` },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    )
    expect(response.status).toBe(400)
  })
})
