/**
 * `npm run soak`: replays a seeded, realistic stream of Stripe and Polar webhook events for
 * many users against the production build on the local stack, with duplicates, reordering
 * and concurrency, then checks `user_subscriptions` and `payment_history` row by row against
 * what the stream implies (tests/tools/soak/stream.ts). Loopback only; bounded in count and time.
 *
 *   npm run soak -- [--seed 1] [--users 200] [--events 4000] [--concurrency 24]
 *                   [--duplicates 0.15] [--reorder-window 3600] [--timeout 240]
 *                   [--skip-build] [--build-dir .build-soak] [--port-offset 0]
 *
 * PGlite by default; DATABASE_URL=postgres://… runs it on a fresh database of that server
 * (created and dropped by the run). Exit code 0 only with zero mismatches and every answer
 * a 200.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createPolar } from '@polar-sh/sdk/2026-10'
import { createClient } from '@supabase/supabase-js'
import pg from 'pg'
import Stripe from 'stripe'
import { PolarSubscriptionSchema, polarSubscriptionFields } from '../../../app/billing/polar/events'
import { LOCAL_PLAN_IDS } from '../../../app/billing/plans'
import { LOCAL_DEFAULTS } from '../../../app/env.server'
import {
  migrate,
  openDatabase,
  PROJECT_ROOT,
  withDatabaseName,
  type Database,
} from '../../local-stack/database'
import { signWebhook } from '../../local-stack/polar'
import { LOCAL_CATALOG } from '../../local-stack/catalog'
import { startLocalStack, type LocalStack } from '../../local-stack/stack'
import { LOCAL_SERVICE_ROLE_KEY } from '../../local-stack/supabase/keys'
import {
  expectedState,
  generateStream,
  PAYMENT_COLUMNS,
  SUBSCRIPTION_COLUMNS,
  TIME_COLUMNS,
  type Delivery,
  type PolarResources,
  type Provider,
} from './stream'

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    users: { type: 'string', default: '200' },
    events: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '24' },
    duplicates: { type: 'string', default: '0.15' },
    'reorder-window': { type: 'string', default: '3600' },
    timeout: { type: 'string', default: '240' },
    'skip-build': { type: 'boolean', default: false },
    'build-dir': { type: 'string', default: '.build-soak' },
    'port-offset': { type: 'string', default: '0' },
  },
})
const seed = Number(args.seed)
const userCount = Number(args.users)
const eventTarget = Number(args.events)
const concurrency = Number(args.concurrency)
const duplicateRate = Number(args.duplicates)
const reorderWindowMs = Number(args['reorder-window']) * 1000
const timeoutMs = Number(args.timeout) * 1000
const buildDir = args['build-dir'] as string
const offset = Number(args['port-offset'])
const PORTS = {
  app: 4950 + offset,
  supabase: 54950 + offset,
  stripe: 12950 + offset,
  polar: 12960 + offset,
}
const siteUrl = `http://localhost:${PORTS.app}`
const appUrl = `http://127.0.0.1:${PORTS.app}`

const started = Date.now()
const log = (message: string) =>
  console.log(`[soak ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`)

// ---------------------------------------------------------------------------------------
// Resources and their cleanup (also on the hard timeout)

let stack: LocalStack | undefined
let appProcess: ChildProcess | undefined
let serverDatabase: { url: string; name: string } | undefined
let database: Database | undefined

async function cleanUp() {
  if (appProcess && appProcess.exitCode === null) {
    appProcess.kill('SIGTERM')
    await new Promise((resolve) => appProcess?.once('exit', resolve))
  }
  await stack?.close().catch(() => {})
  await database?.close().catch(() => {})
  if (serverDatabase) {
    const admin = new pg.Client({ connectionString: serverDatabase.url })
    await admin.connect()
    await admin.query(`drop database if exists ${serverDatabase.name} with (force)`).catch(() => {})
    await admin.end()
  }
}

const hardTimeout = setTimeout(() => {
  console.error(`[soak] FAILED: hard timeout of ${timeoutMs / 1000}s reached`)
  void cleanUp().finally(() => process.exit(2))
}, timeoutMs)

// ---------------------------------------------------------------------------------------

async function build() {
  if (args['skip-build']) return log(`using the existing build in ${buildDir}`)
  log(`building into ${buildDir}`)
  const result = spawnSync(path.join(PROJECT_ROOT, 'node_modules/.bin/remix'), ['vite:build'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, BUILD_DIR: buildDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (result.status !== 0) throw new Error('build failed')
}

async function openSoakDatabase() {
  const serverUrl = process.env.DATABASE_URL
  if (!serverUrl) {
    database = await openDatabase()
  } else {
    const name = `soak_${process.pid}_${Date.now().toString(36)}`
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect()
    await admin.query(`create database ${name}`)
    await admin.end()
    serverDatabase = { url: serverUrl, name }
    database = await openDatabase({ url: withDatabaseName(serverUrl, name) })
  }
  await migrate(database)
  return database
}

async function startApp() {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...stack?.env,
    NODE_ENV: 'test',
    PORT: String(PORTS.app),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
  }
  delete env.DATABASE_URL
  const child = spawn(
    process.execPath,
    [path.join(PROJECT_ROOT, 'server.js'), `${buildDir}/server/index.js`],
    { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  appProcess = child
  const errors: string[] = []
  child.stderr?.on('data', (chunk: Buffer) => {
    if (errors.length < 50) errors.push(chunk.toString())
  })
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`the app exited:\n${errors.join('')}`)
    const ok = await fetch(`${appUrl}/healthz`).then(
      (response) => response.ok,
      () => false,
    )
    if (ok) return errors
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the app did not answer /healthz')
}

/** Confirmed users through the admin API, a few at a time. */
async function createUsers(count: number) {
  const admin = createClient(stack!.supabase.url, LOCAL_SERVICE_ROLE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })
  const ids: string[] = new Array(count)
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const index = next++
        const { data, error } = await admin.auth.admin.createUser({
          email: `soak-${seed}-${index}@example.com`,
          password: 'soak-password-123',
          email_confirm: true,
        })
        if (error || !data.user) throw new Error(`createUser: ${error?.message}`)
        ids[index] = data.user.id
      }
    }),
  )
  return ids
}

/** Real checkouts and renewals in the Polar emulator, so order.paid finds its orders. */
async function createPolarResources(userId: string, index: number): Promise<PolarResources> {
  const polar = createPolar({
    accessToken: LOCAL_DEFAULTS.POLAR_ACCESS_TOKEN,
    environment: 'sandbox',
    baseUrl: stack!.polar.url,
  })
  const subscriptions: PolarResources['subscriptions'] = []
  for (let n = 0; n < 2; n++) {
    const product = (index + n) % 2 === 0 ? 'pro' : 'starter'
    const checkout = await polar.checkouts.create({
      products: [LOCAL_PLAN_IDS[product].polarProductId],
      metadata: { user_id: userId },
      // The user's own customer, as the app's checkout makes it (one customer per email).
      external_customer_id: userId,
      customer_email: `soak-${userId}@example.com`,
      success_url: `${siteUrl}/success?checkout_id={CHECKOUT_ID}`,
    })
    const paid = await stack!.polar.completeCheckout(checkout.id)
    const orders = [paid.order as unknown as Record<string, unknown>]
    for (let renewal = 0; renewal < 3; renewal++) {
      const result = await stack!.polar.trigger('renewal', {
        subscription_id: paid.subscription.id,
      })
      if (result.order) orders.push(result.order as unknown as Record<string, unknown>)
    }
    subscriptions.push({
      subscription: paid.subscription as unknown as Record<string, unknown>,
      orders,
    })
  }
  return { subscriptions }
}

/** The app's own mapping of Polar events (unit-tested against the spec), times in ms. */
function polarFields(type: string, subscription: Record<string, unknown>) {
  const fields = polarSubscriptionFields(type, PolarSubscriptionSchema.parse(subscription))
  if (!fields) return null
  const out: Record<string, unknown> = { ...fields }
  for (const [key, value] of Object.entries(out))
    if (TIME_COLUMNS.has(key) && typeof value === 'string') out[key] = Date.parse(value)
  return out
}

// ---------------------------------------------------------------------------------------
// Delivery

interface Figures {
  sent: number
  statuses: Map<number, number>
  retriesAfter5xx: number
  failures: string[]
}

async function deliver(delivery: Delivery, figures: Figures) {
  const { event } = delivery
  for (let attempt = 0; attempt < 3; attempt++) {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (event.provider === 'stripe') {
      headers['stripe-signature'] = Stripe.webhooks.generateTestHeaderString({
        payload: event.body,
        secret: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
      })
    } else {
      const timestamp = Math.floor(Date.now() / 1000)
      headers['webhook-id'] = event.id
      headers['webhook-timestamp'] = String(timestamp)
      headers['webhook-signature'] = signWebhook(
        LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET,
        event.id,
        timestamp,
        event.body,
      )
    }
    figures.sent += 1
    let status = 0
    let text = ''
    try {
      const response = await fetch(`${appUrl}/api/webhooks/${event.provider}`, {
        method: 'POST',
        headers,
        body: event.body,
      })
      status = response.status
      text = await response.text()
    } catch (error) {
      text = String(error)
    }
    figures.statuses.set(status, (figures.statuses.get(status) ?? 0) + 1)
    if (status === 200) return
    if (figures.failures.length < 10)
      figures.failures.push(`${event.provider} ${event.type} ${event.id}: ${status} ${text}`)
    // A provider retries a 5xx (or a dropped connection); anything else is final.
    if (status !== 0 && status < 500) return
    figures.retriesAfter5xx += 1
  }
}

async function replay(deliveries: Delivery[]) {
  const figures: Figures = { sent: 0, statuses: new Map(), retriesAfter5xx: 0, failures: [] }
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < deliveries.length) await deliver(deliveries[next++], figures)
    }),
  )
  return figures
}

// ---------------------------------------------------------------------------------------
// Verification

function normalise(column: string, value: unknown) {
  if (value === null || value === undefined) return null
  if (TIME_COLUMNS.has(column)) return new Date(value as string | number).getTime()
  if (column === 'amount' || column === 'last_event_rank') return Number(value)
  if (typeof value === 'object') return JSON.stringify(value, Object.keys(value).sort())
  return value
}

async function verify(
  userIds: string[],
  expected: ReturnType<typeof expectedState>,
): Promise<{ rowsChecked: number; mismatches: string[] }> {
  const db = stack!.database
  const mismatches: string[] = []
  let rowsChecked = 0
  const { rows: subscriptionRows } = await db.query<Record<string, unknown>>(
    'select * from public.user_subscriptions',
  )
  const actualByUser = new Map(subscriptionRows.map((row) => [row.user_id as string, row]))
  const indexOf = new Map(userIds.map((id, index) => [id, index]))
  for (const row of subscriptionRows)
    if (!indexOf.has(row.user_id as string)) mismatches.push(`unexpected row for ${row.user_id}`)
  userIds.forEach((userId, index) => {
    const want = expected.subscriptions.get(index)
    const got = actualByUser.get(userId)
    if (!want && !got) return
    rowsChecked += 1
    if (!want || !got) {
      mismatches.push(`user ${index}: subscription row ${want ? 'missing' : 'unexpected'}`)
      return
    }
    for (const column of SUBSCRIPTION_COLUMNS) {
      const a = normalise(column, got[column])
      const b = normalise(column, want[column])
      if (a !== b)
        mismatches.push(
          `user ${index} (${want.provider}) ${column}: database ${JSON.stringify(a)}, stream ${JSON.stringify(b)}`,
        )
    }
  })

  const { rows: paymentRows } = await db.query<Record<string, unknown>>(
    'select * from public.payment_history',
  )
  const seen = new Set<string>()
  for (const row of paymentRows) {
    const key =
      row.provider === 'stripe'
        ? `stripe:${row.stripe_invoice_id}`
        : `polar:${row.polar_order_id}:${row.status}`
    rowsChecked += 1
    if (seen.has(key)) mismatches.push(`payment ${key}: more than one row`)
    seen.add(key)
    const want = expected.payments.get(key)
    if (!want) {
      mismatches.push(`payment ${key}: not implied by the stream`)
      continue
    }
    for (const column of PAYMENT_COLUMNS) {
      const a = normalise(column, row[column])
      if (column === 'created_at') {
        if (![...want.createdAtChoices].includes(a as number))
          mismatches.push(
            `payment ${key} created_at: database ${a}, stream ${[...want.createdAtChoices]}`,
          )
        continue
      }
      const b = normalise(column, want.row[column])
      if (a !== b)
        mismatches.push(
          `payment ${key} ${column}: database ${JSON.stringify(a)}, stream ${JSON.stringify(b)}`,
        )
    }
  }
  for (const key of expected.payments.keys())
    if (!seen.has(key)) {
      rowsChecked += 1
      mismatches.push(`payment ${key}: missing`)
    }
  return { rowsChecked, mismatches }
}

// ---------------------------------------------------------------------------------------

async function main() {
  await build()
  const db = await openSoakDatabase()
  log(`database: ${db.kind}${serverDatabase ? ` (${serverDatabase.name})` : ''}`)
  stack = await startLocalStack({
    database: db,
    siteUrl,
    catalog: LOCAL_CATALOG,
    ports: PORTS,
    polarInvoiceDelayMs: 0,
  })
  // Only the replayed stream reaches the app: the Polar emulator's own events wait undelivered.
  stack.polar.setWebhookUrl(undefined)
  const appErrors = await startApp()

  const userIds = await createUsers(userCount)
  const providers: Provider[] = userIds.map((_id, index) => (index % 2 === 0 ? 'stripe' : 'polar'))
  const polar = new Map<number, PolarResources>()
  await Promise.all(
    userIds.map(async (id, index) => {
      if (providers[index] === 'polar') polar.set(index, await createPolarResources(id, index))
    }),
  )
  log(`${userCount} users (${polar.size} with Polar checkouts and renewals in the emulator)`)

  const stream = generateStream(
    {
      seed,
      users: userIds.map((id, index) => ({
        id,
        provider: providers[index],
        polar: polar.get(index),
      })),
      events: eventTarget,
      duplicateRate,
      reorderWindowMs,
      polarInvoiceBaseUrl: stack.polar.url,
    },
    polarFields,
  )
  const byType = new Map<string, number>()
  for (const event of stream.events) byType.set(event.type, (byType.get(event.type) ?? 0) + 1)
  log(
    `stream (seed ${seed}): ${stream.events.length} events, ${stream.deliveries.length} deliveries, concurrency ${concurrency}`,
  )

  const replayStarted = Date.now()
  const figures = await replay(stream.deliveries)
  const replaySeconds = (Date.now() - replayStarted) / 1000
  const expected = expectedState(stream.events)
  const { rowsChecked, mismatches } = await verify(userIds, expected)
  const fiveXX = [...figures.statuses].filter(([status]) => status >= 500 || status === 0)
  const non200 = [...figures.statuses].filter(([status]) => status !== 200)

  console.log('\n━━ soak figures')
  console.log(`  database          ${db.kind}`)
  console.log(`  seed              ${seed}`)
  console.log(`  users             ${userCount}`)
  console.log(
    `  events            ${stream.events.length} unique (${[...byType].map(([type, n]) => `${type} ${n}`).join(', ')})`,
  )
  console.log(
    `  deliveries        ${stream.deliveries.length} (duplicates ${stream.duplicates}, ${((stream.duplicates / stream.events.length) * 100).toFixed(1)}%)`,
  )
  console.log(
    `  reordered         ${stream.reordered} delivered after a newer event of the same user`,
  )
  console.log(
    `  same-second       ${stream.sameSecond} events share a second with another of their user`,
  )
  console.log(`  concurrency       ${concurrency}`)
  console.log(
    `  requests          ${figures.sent} (${[...figures.statuses].map(([s, n]) => `${s || 'network error'}: ${n}`).join(', ')})`,
  )
  console.log(
    `  elapsed           replay ${replaySeconds.toFixed(1)}s (${(figures.sent / replaySeconds).toFixed(0)} req/s), total ${((Date.now() - started) / 1000).toFixed(1)}s`,
  )
  console.log(
    `  rows checked      ${rowsChecked} (${expected.subscriptions.size} subscriptions, ${expected.payments.size} payments)`,
  )
  console.log(`  mismatches        ${mismatches.length}`)
  for (const line of mismatches.slice(0, 15)) console.log(`    - ${line}`)
  for (const line of figures.failures) console.log(`    ! ${line}`)
  if (appErrors.length && (fiveXX.length || non200.length))
    console.log(`  app stderr (first lines):\n${appErrors.join('').slice(0, 2000)}`)

  const ok = mismatches.length === 0 && non200.length === 0
  console.log(`\n${ok ? 'PASSED' : 'FAILED'}`)
  return ok
}

main().then(
  async (ok) => {
    clearTimeout(hardTimeout)
    await cleanUp()
    process.exit(ok ? 0 : 1)
  },
  async (error) => {
    clearTimeout(hardTimeout)
    console.error('[soak] FAILED:', error)
    await cleanUp()
    process.exit(1)
  },
)
