import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

import type { ServerBuild } from '@remix-run/node'
import { createServerClient, parseCookieHeader, serializeCookieHeader } from '@supabase/ssr'
import { createClient } from '@supabase/supabase-js'
import Stripe from 'stripe'
import { afterAll, beforeAll, expect } from 'vitest'

import { resetEnvForTests } from '../../app/env.server'
import { setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import { stopMailDelivery } from '../../app/notifications/delivery.server'
import * as success from '../../app/routes/success'
import { createApp } from '../../server-app.js'
import { withOutageSwitch } from '../local-stack/database'
import { type LocalStack, type LocalStackOptions, SUITE_AUTH_LIMITS } from '../local-stack/stack'
import type { DeliveryOptions } from '../local-stack/stripe'
import { LOCAL_SERVICE_ROLE_KEY } from '../local-stack/supabase/keys'
import { createTestDatabase } from '../setup/database'
import { startAppStack, withBothStandIns } from '../setup/stack'
import { createAccount, PASSWORD, subscribeAtStripe } from './accounts'
import { authorizeOnConsentPage } from './auth-support'
import { paidEmulatorCheckout, polarEvent, postPolarEvent } from './polar-fixtures'
export interface TestApp {
  /** The app's origin (its real route handlers over HTTP). */
  url: string
  stack: LocalStack
  /** Makes the database unreachable for the emulators (and so for the app), or restores it. */
  setDatabaseDown(down: boolean): void
  /** While stalled, every transaction waits until it is not (a database too slow to answer). */
  setDatabaseStalled(stalled: boolean): void
  close(): Promise<void>
}

/** Vite's server build of the app (the Remix plugin's virtual module), in this test's module graph. */
export async function loadServerBuild() {
  return (await import(/* @vite-ignore */ 'virtual:remix/server-build' as string)) as ServerBuild
}

/**
 * The whole app on a loopback HTTP server as `npm start` serves it, on a fresh database and
 * the emulators; its build is loaded in the test's module graph, so a test reaches its modules.
 */
export async function startTestApp(
  options: {
    polarInvoiceDelayMs?: number
    stripeDelivery?: DeliveryOptions
    /** Which kind of Supabase keys the app is configured with (default: the legacy ones). */
    supabaseKeys?: LocalStackOptions['supabaseKeys']
    /**
     * The auth server's project settings. Default: SUITE_AUTH_LIMITS (a test override: each
     * file drives its journeys from one loopback address, see the local stack's README).
     */
    supabaseAuth?: LocalStackOptions['supabaseAuth']
    /** Settings of this file's app (TRUSTED_PROXY_COUNT...), taken out again by close(). */
    env?: Record<string, string>
  } = {},
): Promise<TestApp> {
  const database = await createTestDatabase()
  const outage = withOutageSwitch(database)
  // The server listens first: the emulators need the app's origin (the site URL).
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`
  const stack = withBothStandIns(
    await startAppStack({
      database: outage.database,
      siteUrl: origin,
      retry: { attempts: 3, baseDelayMs: 50 },
      polarInvoiceDelayMs: options.polarInvoiceDelayMs,
      stripeDelivery: options.stripeDelivery,
      supabaseKeys: options.supabaseKeys,
      supabaseAuth: options.supabaseAuth ?? SUITE_AUTH_LIMITS,
    }),
  )
  Object.assign(process.env, stack.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
    ...options.env,
  })
  resetEnvForTests()
  // Loading the build runs the server entry's start-up (app/entry.server.tsx), which starts
  // this instance's mail deliverer; the tests deliver mails themselves, when they choose.
  const build = await loadServerBuild()
  await stopMailDelivery()
  server.on('request', createApp(build))
  return {
    url: origin,
    stack,
    setDatabaseDown: outage.setDown,
    setDatabaseStalled: outage.setStalled,
    async close() {
      for (const name of Object.keys(options.env ?? {})) delete process.env[name]
      resetEnvForTests()
      setRateLimitStore(undefined)
      await stack.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await database.close()
    },
  }
}

/** The file's app, started before its tests and closed after them: read it in hooks and tests. */
export function testAppForFile(options?: Parameters<typeof startTestApp>[0]): TestApp {
  let app: TestApp | undefined
  beforeAll(async () => {
    app = await startTestApp(options)
  })
  afterAll(() => app?.close())
  return new Proxy({} as TestApp, {
    get(_target, key: keyof TestApp) {
      if (!app) throw new Error('the app starts in beforeAll')
      return app[key]
    },
  })
}

/** Waits out the auth server's `max_frequency` (one mail of a kind per address a minute). */
export async function waitOutMailFrequency(app: TestApp, email: string) {
  await app.stack.database.query(
    `update auth.users set
       confirmation_sent_at = confirmation_sent_at - interval '61 seconds',
       recovery_sent_at = recovery_sent_at - interval '61 seconds',
       email_change_sent_at = email_change_sent_at - interval '61 seconds',
       reauthentication_sent_at = reauthentication_sent_at - interval '61 seconds'
     where lower(email) = lower($1)`,
    [email],
  )
  // The app keeps the same minute for every address (MAIL_MINUTE): it passes too.
  setRateLimitStore(undefined)
  await app.stack.database.query(
    `delete from public.rate_limits where key like 'auth:mail-minute:%'`,
  )
}

/** Runs `fn` with these settings in the environment the app reads, then takes them out. */
export async function withEnv<T>(settings: Record<string, string>, fn: () => Promise<T>) {
  Object.assign(process.env, settings)
  resetEnvForTests()
  try {
    return await fn()
  } finally {
    for (const name of Object.keys(settings)) delete process.env[name]
    resetEnvForTests()
  }
}

/** Runs `fn` with Stripe's webhooks delivered to a sink that answers 200 and applies nothing. */
export async function withStripeWebhooksSwallowed<T>(app: TestApp, fn: () => Promise<T>) {
  const sink = createServer((_req, res) => res.writeHead(200).end('{}'))
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
  app.stack.stripe.setWebhookUrl(`http://127.0.0.1:${(sink.address() as AddressInfo).port}/`)
  try {
    const result = await fn()
    await app.stack.stripe.idle()
    return result
  } finally {
    app.stack.stripe.setWebhookUrl(`${app.url}/api/webhooks/stripe`)
    await new Promise<void>((resolve) => sink.close(() => resolve()))
  }
}

/** A trigger that makes every insert/update of `table` raise, dropped by the returned function. */
export async function failWritesTo(app: TestApp, table: string) {
  const name = `fault_${table}`
  await app.stack.database.exec(`
    create function public.${name}() returns trigger language plpgsql as $$
      begin raise exception 'injected database failure on ${table}'; end $$;
    create trigger ${name} before insert or update on public.${table}
      for each row execute function public.${name}();`)
  return () =>
    app.stack.database.exec(
      `drop trigger if exists ${name} on public.${table}; drop function if exists public.${name}();`,
    )
}

export function adminClient(app: TestApp) {
  return createClient(app.stack.supabase.url, LOCAL_SERVICE_ROLE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })
}

/** The user's subscription row (every column), or null. */
export async function subscriptionRowOf(app: TestApp, userId: string) {
  const { data } = await adminClient(app)
    .from('user_subscriptions')
    .select('*')
    .eq('user_id', userId)
    .maybeSingle()
  return data as Record<string, unknown> | null
}

/** The rows of a public table whose columns equal `match`, in `order` when given. */
export async function rowsWhere(
  app: TestApp,
  table: string,
  match: Record<string, unknown>,
  { select = '*', order }: { select?: string; order?: string } = {},
) {
  const query = adminClient(app).from(table).select(select).match(match)
  const { data, error } = await (order ? query.order(order) : query)
  if (error) throw new Error(`${table}: ${error.message}`)
  return data as unknown as Record<string, unknown>[]
}

export async function ledgerCount(app: TestApp, eventId: string) {
  const { count } = await adminClient(app)
    .from('webhook_events')
    .select('*', { count: 'exact', head: true })
    .eq('event_id', eventId)
  return count ?? 0
}

export function emulatorStripe(app: TestApp) {
  const url = new URL(app.stack.env.STRIPE_API_URL)
  return new Stripe(app.stack.env.STRIPE_SECRET_KEY, {
    host: url.hostname,
    port: Number(url.port),
    protocol: 'http',
  })
}

let userCounter = 0

export const newEmail = (label = 'user') => `${label}-${++userCounter}-${Date.now()}@example.com`

/** Creates a user (confirmed unless told otherwise); returns its id, email and password. */
export function createUser(
  app: TestApp,
  email = newEmail(),
  options?: Parameters<typeof createAccount>[2],
) {
  return createAccount(adminClient(app), email, options)
}

/** Creates a confirmed user and signs them in; returns the id and the session cookies. */
export async function createSignedInUser(app: TestApp, email = newEmail()) {
  const { id } = await createUser(app, email)
  return { id, email, cookie: await signInAs(app, email) }
}

/** A signed-in user (a new one unless given) with a live Stripe Pro subscription the app has. */
export async function stripeSubscriber(
  app: TestApp,
  user?: { id: string; email: string; cookie: string },
) {
  const subscriber = user ?? (await createSignedInUser(app))
  const { customer, subscription } = await subscribeAtStripe(emulatorStripe(app), subscriber)
  await app.stack.stripe.idle()
  return { user: subscriber, customer, subscription }
}

/** An @supabase/ssr client whose cookies live in a jar, like a browser's. */
function browserLikeClient(app: TestApp) {
  const jar = new Map<string, string>()
  const client = createServerClient(app.stack.env.SUPABASE_URL, app.stack.env.SUPABASE_ANON_KEY, {
    cookies: {
      getAll: () => [...jar].map(([name, value]) => ({ name, value })),
      setAll: (cookies) => {
        for (const { name, value } of cookies) {
          if (value) jar.set(name, value)
          else jar.delete(name)
        }
      },
    },
  })
  const cookieHeader = () =>
    [...jar].map(([name, value]) => serializeCookieHeader(name, value, {}).split(';')[0]).join('; ')
  return { client, cookieHeader }
}

/** Signs in as a browser would (@supabase/ssr cookies): each call is another device's session. */
export async function signInAs(app: TestApp, email: string, password = PASSWORD) {
  const { client, cookieHeader } = browserLikeClient(app)
  const signIn = await client.auth.signInWithPassword({ email, password })
  if (signIn.error) throw new Error(`sign-in failed: ${signIn.error.message}`)
  return cookieHeader()
}

/** A user signed in with GitHub through the local consent page (no password), signed in. */
export async function createGitHubUser(app: TestApp, email = newEmail('octo')) {
  const { client, cookieHeader } = browserLikeClient(app)
  const { data, error } = await client.auth.signInWithOAuth({
    provider: 'github',
    options: { redirectTo: `${app.url}/auth/callback` },
  })
  if (error || !data.url) throw new Error(`signInWithOAuth failed: ${error?.message}`)
  const target = await authorizeOnConsentPage(data.url, email)
  const session = await client.auth.exchangeCodeForSession(target.searchParams.get('code') ?? '')
  if (session.error || !session.data.user)
    throw new Error(`OAuth failed: ${session.error?.message}`)
  return { id: session.data.user.id, email, cookie: cookieHeader() }
}

export function mergeCookies(cookie: string, response: Response) {
  const jar = new Map(parseCookieHeader(cookie).map(({ name, value }) => [name, value ?? '']))
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';')
    const index = pair.indexOf('=')
    const name = pair.slice(0, index)
    const value = pair.slice(index + 1)
    if (value) jar.set(name, value)
    else jar.delete(name)
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
}

/** A browser on the app: its own cookie jar, same-site form posts, redirects never followed. */
export function browserOn(app: TestApp) {
  let cookie = ''
  async function send(path: string, init: RequestInit = {}) {
    const response = await fetch(new URL(path, app.url), {
      ...init,
      redirect: 'manual',
      headers: { Cookie: cookie, Origin: app.url, ...init.headers },
    })
    cookie = mergeCookies(cookie, response)
    return response
  }
  return {
    cookie: () => cookie,
    visit: (path: string) => send(path),
    submit: (path: string, form: Record<string, string>) =>
      send(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      }),
  }
}

/** A signed-in user with a paid Polar checkout whose subscription.created reached the app. */
export async function polarSubscriber(app: TestApp) {
  const user = await createSignedInUser(app)
  const paid = await paidEmulatorCheckout(app, user.id)
  const created = await postPolarEvent(
    app.url,
    polarEvent('subscription.created', paid.subscription),
  )
  if (created.status !== 200) throw new Error(`subscription.created answered ${created.status}`)
  return { user, ...paid }
}

/** The /success page's status for the query, never cached. */
export async function successStatus(app: TestApp, query: string) {
  const result = (await success.loader({
    request: new Request(`${app.url}/success${query}`),
    params: {},
    context: {},
  })) as unknown as { data: { status: string }; init: ResponseInit | null }
  expect(new Headers(result.init?.headers).get('cache-control')).toBe('private, no-store')
  return result.data.status
}
