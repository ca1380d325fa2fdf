import http from 'node:http'

import { afterAll, expect, inject, it } from 'vitest'

import { resetEnvForTests } from '../../app/env.server'
import { setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import {
  openStatements,
  perRequest,
  type StatementReader,
  statementsBetween,
} from '../../tools/bench/statements'
import { withDatabaseName } from '../local-stack/database'
import { value } from '../setup/database'
import { createSignedInUser, startTestApp, type TestApp } from './harness'

/**
 * The database's work per signed-in page, counted as the bench counts it
 * (tools/bench/statements.ts; docs/performance.md, "Database work per request"): at most 2
 * statements (the session check and the page's one read, sent at once), no row written.
 * Only on a PostgreSQL server that loads pg_stat_statements; elsewhere skipped, saying why.
 */
const REQUESTS = 5
/**
 * The app's statements per page, and the auth server's own (a `getUser` would be its session,
 * user and identities, 3 reads of auth.*): none, the account page too reads what the auth
 * server holds in its one read.
 */
const PAGES = [
  { path: '/dashboard', app: 2, authServer: 0 },
  { path: '/dashboard/settings/billing', app: 2, authServer: 0 },
  { path: '/dashboard/settings/billing?page=2', app: 2, authServer: 0 },
  { path: '/dashboard/settings/account', app: 2, authServer: 0 },
]

let app: TestApp | undefined
let reader: StatementReader | undefined
afterAll(async () => {
  await reader?.close()
  await app?.close()
})

/** One page view as a browser's document request: every loader of the page, one request. */
const view = (url: string, cookie: string) =>
  new Promise<number>((resolve, reject) => {
    http
      .get(url, { headers: { cookie } }, (answer) => {
        answer.resume()
        answer.on('end', () => resolve(answer.statusCode ?? 0))
      })
      .on('error', reject)
  })

it('a signed-in page makes 2 statements, the session check and its read, and writes nothing', async (context) => {
  const serverUrl = inject('databaseServerUrl')
  if (!serverUrl) context.skip('PGlite: statements are counted on the PostgreSQL server only')
  app = await startTestApp()
  const name = await value(app.stack.database, 'select current_database() as value')
  const opened = await openStatements(withDatabaseName(serverUrl, name))
  if ('skipped' in opened) return context.skip(opened.skipped)
  reader = opened
  const user = await createSignedInUser(app)
  for (const page of PAGES) {
    expect(await view(`${app.url}${page.path}`, user.cookie), page.path).toBe(200)
    const [before, callsBefore] = [await reader.snapshot(), await reader.calls()]
    for (let index = 0; index < REQUESTS; index++) await view(`${app.url}${page.path}`, user.cookie)
    const work = perRequest(before, await reader.snapshot(), REQUESTS)
    const made = statementsBetween(callsBefore, await reader.calls(), REQUESTS)
    const authServer = made
      .filter((entry) => !entry.query.startsWith('rpc ') && /\bauth\./.test(entry.query))
      .reduce((sum, entry) => sum + entry.perRequest, 0)
    const measured = { app: work.statements - authServer, authServer, written: work.rowsWritten }
    expect
      .soft(measured, `${page.path}: ${JSON.stringify(made)}`)
      .toEqual({ app: page.app, authServer: page.authServer, written: 0 })
  }
})

it('a sign-in link post hits its counters and the mail minute in one statement', async (context) => {
  if (!app || !reader) return context.skip('statements are not counted here (the case above)')
  process.env.RATE_LIMIT_STORE = 'postgres'
  resetEnvForTests()
  setRateLimitStore(undefined)
  const before = await reader.snapshot()
  for (let index = 0; index < REQUESTS; index++) {
    const body = new URLSearchParams({ intent: 'magic-link', email: `link${index}@example.com` })
    const answer = await fetch(`${app.url}/sign-in`, { method: 'POST', body, redirect: 'manual' })
    expect(answer.headers.get('location')).toMatch(/^\/sign-in\/confirm\?email=/)
  }
  expect(perRequest(before, await reader.snapshot(), REQUESTS).rateLimitCalls).toBe(1)
})
