/**
 * `npm run soak`: replays a seeded, realistic stream of Stripe and Polar webhook events for
 * many users against the production build on the local stack, with duplicates, reordering
 * and concurrency, then checks `user_subscriptions` and `payment_history` row by row against
 * what the stream implies (tools/soak/stream.ts). Loopback only; bounded in count and time.
 *
 *   npm run soak -- [--seed 1] [--users 200] [--events 4000] [--concurrency 24]
 *                   [--duplicates 0.15] [--reorder-window 3600] [--timeout 240]
 *                   [--skip-build] [--build-dir .build-soak] [--port-offset 0]
 *                   [--stripe-delivery shuffled|ordered] [--emulator-users N]
 *   npm run soak -- --chaos …   the chaos soak (tools/soak/chaos.ts)
 *
 * Then a second phase runs subscriptions through the Stripe emulator itself (renewals, a
 * declined renewal, recovery), whose own webhooks reach the app shuffled and partly
 * duplicated by default (tools/soak/stripe-emulator-phase.ts), and compares each of
 * those users' rows with the emulator's state.
 *
 * PGlite by default; DATABASE_URL=postgres://… runs it on a fresh database of that server
 * (created and dropped by the run). Exit code 0 only with zero mismatches and every answer
 * a 200.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import { parseArgs } from 'node:util'

import pg from 'pg'

import {
  type Database,
  migrate,
  openDatabase,
  PROJECT_ROOT,
  withDatabaseName,
} from '../../tests/local-stack/database'
import { type LocalStack, SUITE_AUTH_LIMITS } from '../../tests/local-stack/stack'
import { startAppStack, withBothStandIns } from '../../tests/setup/stack'
import { TOOL_PORTS } from '../ports'
import { createPolarResources, createUsers, polarFields, signedHeaders, verify } from './shared'
import {
  type Delivery,
  expectedState,
  generateStream,
  type PolarResources,
  type Provider,
} from './stream'
import { runStripeEmulatorPhase } from './stripe-emulator-phase'

// `--chaos`: the chaos soak (two instances, kills, a database restart, provider faults;
// tools/soak/chaos.ts), which ends the process itself.
if (process.argv.includes('--chaos')) {
  await import('./chaos')
  await new Promise(() => {})
}

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
    'stripe-delivery': { type: 'string', default: 'shuffled' },
    'emulator-users': { type: 'string' },
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
const stripeDelivery = args['stripe-delivery'] === 'ordered' ? 'ordered' : 'shuffled'
const emulatorUsers = Number(args['emulator-users'] ?? Math.max(3, Math.round(userCount / 10)))
const PORTS = {
  app: TOOL_PORTS.soak.app + offset,
  supabase: TOOL_PORTS.soak.supabase + offset,
  stripe: TOOL_PORTS.soak.stripe + offset,
  polar: TOOL_PORTS.soak.polar + offset,
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
    const headers = signedHeaders(delivery)
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
// ---------------------------------------------------------------------------------------

async function main() {
  await build()
  const db = await openSoakDatabase()
  log(`database: ${db.kind}${serverDatabase ? ` (${serverDatabase.name})` : ''}`)
  stack = withBothStandIns(
    await startAppStack({
      database: db,
      siteUrl,
      ports: PORTS,
      polarInvoiceDelayMs: 0,
      stripeDelivery: { mode: stripeDelivery, seed },
      // A load from one address against one project: the auth server's per-IP limits and
      // mail budget would stop it, and are not what it measures (the local stack's README).
      supabaseAuth: SUITE_AUTH_LIMITS,
    }),
  )
  // Only the replayed stream reaches the app: the Polar emulator's own events wait undelivered.
  stack.polar.setWebhookUrl(undefined)
  const appErrors = await startApp()

  const userIds = await createUsers(stack, seed, userCount)
  const providers: Provider[] = userIds.map((_id, index) => (index % 2 === 0 ? 'stripe' : 'polar'))
  const polar = new Map<number, PolarResources>()
  await Promise.all(
    userIds.map(async (id, index) => {
      if (providers[index] === 'polar')
        polar.set(index, await createPolarResources(stack!, siteUrl, id, index))
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
  const { rowsChecked, mismatches } = await verify(stack, userIds, expected)
  log(`emulator phase: ${emulatorUsers} users, Stripe delivery ${stripeDelivery}`)
  const phaseUsers = await createUsers(stack, seed + 1_000_000, emulatorUsers)
  const phase = await runStripeEmulatorPhase(stack, phaseUsers)
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
  console.log(
    `  emulator phase    ${phase.users} users, ${phase.events} events, ${phase.deliveries} deliveries (${stripeDelivery}: ${phase.duplicates} duplicates, ${phase.failedDeliveries} not 2xx), ${phase.rowsChecked} rows checked, ${phase.mismatches.length} mismatches`,
  )
  for (const line of phase.mismatches.slice(0, 15)) console.log(`    - ${line}`)
  for (const line of figures.failures) console.log(`    ! ${line}`)
  if (appErrors.length && (fiveXX.length || non200.length))
    console.log(`  app stderr (first lines):\n${appErrors.join('').slice(0, 2000)}`)

  const ok =
    mismatches.length === 0 &&
    non200.length === 0 &&
    phase.mismatches.length === 0 &&
    phase.failedDeliveries === 0
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
