// The server's route matching is patched (patches/@remix-run+router+*.patch, applied by
// `patch-package` after every install; docs/performance.md, "Where the time goes"): the ranked
// branches of a route array, the matches of each path it is asked for (bounded) and each
// compiled path pattern are computed once instead of on every match. The browser's copy of
// the router (the ES module build) is not patched, so it is the reference: both must match
// every path the same way.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'

type Router = typeof import('@remix-run/router')
const require = createRequire(import.meta.url)
const cjsPath = require.resolve('@remix-run/router')
const patched = require(cjsPath) as Router
const reference = (await import(path.join(path.dirname(cjsPath), 'router.js'))) as Router

type Route = import('@remix-run/router').AgnosticRouteObject

// The shapes a Remix route table has: a root layout, index routes, pathless layouts, nested
// and escaped segments, params, optional segments, a splat and a case-sensitive path.
const routes: Route[] = [
  {
    id: 'root',
    path: '',
    children: [
      { id: 'index', index: true },
      { id: 'pricing', path: 'pricing' },
      { id: 'healthz', path: 'healthz' },
      { id: 'webhook', path: 'api/webhooks/stripe' },
      { id: 'subscribe', path: 'subscribe/:plan' },
      { id: 'optional', path: 'docs/:lang?/guide' },
      { id: 'exact', path: 'CaseSensitive', caseSensitive: true },
      {
        id: 'dashboard',
        path: 'dashboard',
        children: [
          { id: 'dashboard-index', index: true },
          {
            id: 'settings',
            path: 'settings',
            children: [
              { id: 'settings-index', index: true },
              { id: 'billing', path: 'billing' },
              { id: 'account', path: 'account' },
            ],
          },
        ],
      },
      { id: 'pathless', children: [{ id: 'sign-in', path: 'sign-in' }] },
      { id: 'sign-in-confirm', path: 'sign-in/confirm' },
      { id: 'splat', path: '*' },
    ],
  },
]

const paths = [
  '/',
  '/pricing',
  '/pricing/',
  '/PRICING',
  '/healthz',
  '/api/webhooks/stripe',
  '/api/webhooks/polar',
  '/subscribe/pro',
  '/subscribe/pro%20plan',
  '/subscribe/a%2Fb',
  '/subscribe',
  '/docs/guide',
  '/docs/en/guide',
  '/CaseSensitive',
  '/casesensitive',
  '/dashboard',
  '/dashboard/settings',
  '/dashboard/settings/billing',
  '/dashboard/settings/account/',
  '/dashboard/nope',
  '/sign-in',
  '/sign-in/confirm',
  '/no/such/page',
  '/%E0%A4%A',
]

const strip = (matches: ReturnType<Router['matchRoutes']>) =>
  matches?.map(({ route, ...match }) => ({ ...match, route: (route as Route).id })) ?? null

describe('patched route matching', () => {
  it('is applied to the server build of @remix-run/router', () => {
    const source = readFileSync(cjsPath, 'utf8')
    expect(source).toContain('rankedBranchesCache')
    expect(source).toContain('copyMatches')
    expect(source).toContain('compiledPaths')
    expect(source).toContain('tablesByShape')
  })

  it('matches every path as the unpatched router does, call after call', () => {
    // Both routers warn about the undecodable path.
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    for (let round = 0; round < 3; round++)
      for (const pathname of paths)
        expect(strip(patched.matchRoutes(routes, pathname)), pathname).toEqual(
          strip(reference.matchRoutes(routes, pathname)),
        )
  })

  it('gives each call its own matches, so a caller changing one changes no other', () => {
    const first = patched.matchRoutes(routes, '/subscribe/pro')!
    ;(first[1]!.params as Record<string, string>).plan = 'changed'
    first.pop()
    const second = patched.matchRoutes(routes, '/subscribe/pro')!
    expect(second).toHaveLength(2)
    expect(second[1]!.params.plan).toBe('pro')
  })

  it('shares one params object among the matches of a call, as the unpatched router does', () => {
    for (const router of [patched, reference]) {
      const matches = router.matchRoutes(routes, '/subscribe/pro')!
      expect(matches[0]!.params).toBe(matches[1]!.params)
    }
  })

  it('still matches alike after more paths than it keeps', () => {
    const many = Array.from({ length: 1_200 }, (_, index) => `/subscribe/plan-${index}`)
    for (const pathname of [...many, ...paths, ...many.slice(0, 50)])
      expect(strip(patched.matchRoutes(routes, pathname)), pathname).toEqual(
        strip(reference.matchRoutes(routes, pathname)),
      )
  })

  it('matches a new route array by its own routes, not by an earlier one', () => {
    const other: Route[] = [
      { id: 'other-root', path: '', children: [{ id: 'other', path: 'pricing' }] },
    ]
    expect(strip(patched.matchRoutes(other, '/pricing'))?.map((match) => match.route)).toEqual([
      'other-root',
      'other',
    ])
    expect(strip(patched.matchRoutes(routes, '/pricing'))?.map((match) => match.route)).toEqual([
      'root',
      'pricing',
    ])
  })

  // React Router's static router converts Remix's routes into a new array for every render:
  // arrays of the same shape share one table, and each gets matches naming its own routes.
  const renamed = (tree: Route[], prefix: string): Route[] =>
    tree.map((route) => ({
      ...route,
      id: `${prefix}${route.id}`,
      children: route.children && renamed(route.children, prefix),
    })) as Route[]

  it('matches an array of the same shape by its own route objects', () => {
    for (let render = 0; render < 3; render++) {
      const copy = renamed(routes, `render-${render}-`)
      for (const pathname of paths) {
        const matches = patched.matchRoutes(copy, pathname)
        expect(strip(matches), pathname).toEqual(strip(reference.matchRoutes(copy, pathname)))
        for (const match of matches ?? []) expect(match.route.id).toMatch(`render-${render}-`)
      }
    }
    // The first array of the shape still gets its own.
    expect(strip(patched.matchRoutes(routes, '/dashboard/settings'))?.at(-1)?.route).toBe(
      'settings-index',
    )
  })

  it('does not share between arrays that differ in a path, an index or case sensitivity', () => {
    const variants: [Route[], string][] = [
      [[{ id: 'a', path: 'pricing' }], '/pricing'],
      [[{ id: 'b', path: 'plans' }], '/pricing'],
      [[{ id: 'c', path: 'Pricing', caseSensitive: true }], '/pricing'],
      [[{ id: 'd', path: 'Pricing' }], '/pricing'],
      [[{ id: 'e', path: '', children: [{ id: 'e-index', index: true }] }], '/'],
      [[{ id: 'f', path: '', children: [{ id: 'f-child', path: '' }] }], '/'],
    ]
    for (let round = 0; round < 2; round++)
      for (const [tree, pathname] of variants)
        expect(strip(patched.matchRoutes(tree, pathname)), JSON.stringify(tree)).toEqual(
          strip(reference.matchRoutes(tree, pathname)),
        )
  })

  it('matches a tree that holds one route object twice by its own routes', () => {
    const shared: Route = { id: 'shared', path: 'x' }
    const twice: Route[] = [
      { id: 'one', path: 'a', children: [shared] },
      { id: 'two', path: 'b', children: [shared] },
    ]
    const sameShape: Route[] = [
      { id: 'one-again', path: 'a', children: [{ id: 'x-a', path: 'x' }] },
      { id: 'two-again', path: 'b', children: [{ id: 'x-b', path: 'x' }] },
    ]
    for (const tree of [twice, sameShape, twice])
      for (const pathname of ['/a/x', '/b/x'])
        expect(strip(patched.matchRoutes(tree, pathname)), pathname).toEqual(
          strip(reference.matchRoutes(tree, pathname)),
        )
  })

  it('matches patterns as matchPath did, with case sensitivity and ends kept apart', () => {
    const cases: [Parameters<Router['matchPath']>[0], string][] = [
      ['/users/:id', '/users/7'],
      [{ path: '/users/:id', caseSensitive: true, end: true }, '/USERS/7'],
      [{ path: '/users/:id', caseSensitive: false, end: true }, '/USERS/7'],
      [{ path: '/users', end: false }, '/users/7'],
      [{ path: '/users', end: true }, '/users/7'],
      ['/files/*', '/files/a/b'],
    ]
    for (let round = 0; round < 2; round++)
      for (const [pattern, pathname] of cases)
        expect(patched.matchPath(pattern, pathname)).toEqual(reference.matchPath(pattern, pathname))
  })
})
