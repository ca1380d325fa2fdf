/**
 * `npm run soak -- --chaos`: the soak's seeded Stripe/Polar stream, delivered the way the
 * providers deliver (any non-2xx or connection error retried later with backoff, until a
 * deadline) through a round-robin balancer to two production instances (`server.js` on the
 * build) sharing one PostgreSQL database, while: one instance is SIGKILLed and restarted
 * (several times), the PostgreSQL server is stopped and started (seconds of outage), the
 * Stripe and Polar emulators answer 5xx, 429 or slowly for a share of calls, and one
 * instance gets SIGTERM (in-flight requests finish, new ones go to the other). Then
 * `user_subscriptions` and `payment_history` are compared row by row with the stream.
 *
 *   DATABASE_URL=postgres://…  SOAK_PG_CTL="pg_ctlcluster 15 chaos"  npm run soak -- --chaos
 *     [--seed 1] [--users 200] [--events 4000] [--concurrency 24] [--kills 3]
 *     [--outage 3] [--pace 40] [--deadline 240] [--timeout 420]
 *     [--skip-build] [--build-dir .build-soak] [--port-offset 0]
 *
 * SOAK_PG_CTL is the command that controls the server of DATABASE_URL (`<ctl> stop -m fast`,
 * `<ctl> start`): only a server the run may stop. Without DATABASE_URL or SOAK_PG_CTL the run
 * says why and exits 75 (skipped). Loopback only; bounded in events and time.
 * Exit 0 only with 0 missing, 0 duplicated, 0 wrong rows, every event delivered, every 5xx
 * during a fault and of a retryable cause, and the SIGTERMed instance stopping cleanly.
 */
import { type ChildProcess, execSync, spawn, spawnSync } from 'node:child_process'
import type http from 'node:http'
import os from 'node:os'
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
import { type Backend, startBalancer } from './balancer'
import { createPolarResources, createUsers, polarFields, signedHeaders, verify } from './shared'
import {
  type Delivery,
  expectedState,
  generateStream,
  type PolarResources,
  type Provider,
} from './stream'

const SKIPPED = 75
const { values: args } = parseArgs({
  options: {
    chaos: { type: 'boolean', default: true },
    seed: { type: 'string', default: '1' },
    users: { type: 'string', default: '200' },
    events: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '24' },
    duplicates: { type: 'string', default: '0.15' },
    'reorder-window': { type: 'string', default: '3600' },
    kills: { type: 'string', default: '3' },
    outage: { type: 'string', default: '3' },
    pace: { type: 'string', default: '40' },
    deadline: { type: 'string', default: '240' },
    timeout: { type: 'string', default: '420' },
    'skip-build': { type: 'boolean', default: false },
    'build-dir': { type: 'string', default: '.build-soak' },
    'port-offset': { type: 'string', default: '0' },
  },
})
const seed = Number(args.seed)
const userCount = Number(args.users)
const eventTarget = Number(args.events)
const concurrency = Number(args.concurrency)
const killCount = Number(args.kills)
const outageSeconds = Number(args.outage)
/** The stream is spread over at least this many seconds, so every fault meets traffic. */
const paceSeconds = Number(args.pace)
const deadlineMs = Number(args.deadline) * 1000
const timeoutMs = Number(args.timeout) * 1000
const buildDir = args['build-dir'] as string
const offset = Number(args['port-offset'])
const PORTS = {
  instances: TOOL_PORTS.chaos.instances.map((port) => port + offset),
  balancer: TOOL_PORTS.chaos.balancer + offset,
  supabase: TOOL_PORTS.chaos.supabase + offset,
  stripe: TOOL_PORTS.chaos.stripe + offset,
  polar: TOOL_PORTS.chaos.polar + offset,
}
const siteUrl = `http://localhost:${PORTS.balancer}`
const balancerUrl = `http://127.0.0.1:${PORTS.balancer}`

const started = Date.now()
const elapsed = () => ((Date.now() - started) / 1000).toFixed(1)
const log = (message: string) => console.log(`[chaos ${elapsed()}s] ${message}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const serverUrl = process.env.DATABASE_URL
const pgCtl = process.env.SOAK_PG_CTL
if (!serverUrl || !pgCtl) {
  console.log(
    `[chaos] skipped: ${!serverUrl ? 'DATABASE_URL is not set' : 'SOAK_PG_CTL is not set'} (the chaos soak stops and starts a PostgreSQL server: DATABASE_URL=postgres://… SOAK_PG_CTL="pg_ctlcluster 15 <cluster>", a server the run may stop; see docs/operations.md)`,
  )
  process.exit(SKIPPED)
}

// ---------------------------------------------------------------------------------------
// Resources and cleanup

let stack: LocalStack | undefined
let database: Database | undefined
let databaseName: string | undefined
let balancer: http.Server | undefined
const instances: Instance[] = []

interface Instance extends Backend {
  child?: ChildProcess
  stderr: string[]
}

function pgControl(action: 'stop' | 'start') {
  execSync(`${pgCtl} ${action}${action === 'stop' ? ' -m fast' : ''}`, { stdio: 'inherit' })
}

// Even on a crash (an uncaught error skips cleanUp), no instance outlives the soak to hold its port.
process.on('exit', () => instances.forEach((instance) => instance.child?.kill('SIGKILL')))

async function cleanUp() {
  for (const instance of instances) instance.child?.kill('SIGKILL')
  balancer?.close()
  await stack?.close().catch(() => {})
  await database?.close().catch(() => {})
  if (databaseName) {
    try {
      pgControl('start')
    } catch {
      // already running
    }
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect().catch(() => {})
    await admin.query(`drop database if exists ${databaseName} with (force)`).catch(() => {})
    await admin.end().catch(() => {})
  }
}

const hardTimeout = setTimeout(() => {
  console.error(`[chaos] FAILED: hard timeout of ${timeoutMs / 1000}s reached`)
  void cleanUp().finally(() => process.exit(2))
}, timeoutMs)

// ---------------------------------------------------------------------------------------
// Faults: when each was active, for telling allowed 5xx from the others

type FaultKind = 'kill' | 'database' | 'provider' | 'sigterm'
const faultWindows: { kind: FaultKind; start: number; end?: number }[] = []
/** An answer may arrive a little after its fault ended (a request started during it). */
const GRACE_MS = 5_000

function faultBegins(kind: FaultKind) {
  const window = { kind, start: Date.now() } as (typeof faultWindows)[number]
  faultWindows.push(window)
  return () => {
    window.end = Date.now()
  }
}
function activeFaults(at: number) {
  return new Set(
    faultWindows
      .filter((w) => w.start <= at && (w.end === undefined || at <= w.end + GRACE_MS))
      .map((w) => w.kind),
  )
}

// ---------------------------------------------------------------------------------------
// The metrics of both instances, scraped as an operator's Prometheus would

const METRICS_TOKEN = 'chaos-soak-metrics-token'
const metrics = {
  scrapes: 0,
  failed: 0,
  outboxAgeMax: 0,
  outboxDepthMax: 0,
  /** Webhook outcomes per instance: the last value of each series, and what restarts reset. */
  last: new Map<number, Map<string, number>>(),
  banked: new Map<string, number>(),
}

/** One scrape of each instance; counters that went down were reset by a restart. */
async function scrapeMetrics() {
  for (const instance of instances) {
    // Any failure (refused, cut by a kill, timed out while reading) is a failed scrape.
    const text = await fetch(`http://127.0.0.1:${instance.port}/metrics`, {
      headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
      signal: AbortSignal.timeout(2_000),
    })
      .then((response) => (response.ok ? response.text() : null))
      .catch(() => null)
    if (text === null) {
      metrics.failed++
      continue
    }
    metrics.scrapes++
    const seen = metrics.last.get(instance.index) ?? new Map<string, number>()
    for (const line of text.split('\n')) {
      const value = Number(line.slice(line.lastIndexOf(' ') + 1))
      if (line.startsWith('notification_outbox_oldest_age_seconds '))
        metrics.outboxAgeMax = Math.max(metrics.outboxAgeMax, value)
      if (line.startsWith('notification_outbox_depth '))
        metrics.outboxDepthMax = Math.max(metrics.outboxDepthMax, value)
      const outcome = /^webhook_outcomes_total\{provider="(\w+)",outcome="(\w+)"\}/.exec(line)
      if (!outcome) continue
      const key = `${outcome[1]} ${outcome[2]}`
      const before = seen.get(key) ?? 0
      if (value < before) metrics.banked.set(key, (metrics.banked.get(key) ?? 0) + before)
      seen.set(key, value)
    }
    metrics.last.set(instance.index, seen)
  }
}

/** Every webhook outcome the scrapes saw, over both instances and their restarts. */
function outcomeTotals() {
  const totals = new Map(metrics.banked)
  for (const seen of metrics.last.values())
    for (const [key, value] of seen) totals.set(key, (totals.get(key) ?? 0) + value)
  return [...totals].sort(([a], [b]) => a.localeCompare(b))
}

// ---------------------------------------------------------------------------------------
// Two instances and the balancer

async function startInstance(instance: Instance) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...stack!.env,
    SITE_URL: siteUrl,
    NODE_ENV: 'test',
    PORT: String(instance.port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    RATE_LIMIT_STORE: 'postgres',
    SHUTDOWN_TIMEOUT_MS: '8000',
    METRICS_TOKEN,
  }
  delete env.DATABASE_URL
  const child = spawn(
    process.execPath,
    [path.join(PROJECT_ROOT, 'server.js'), `${buildDir}/server/index.js`],
    { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  instance.child = child
  child.stderr?.on('data', (chunk: Buffer) => {
    if (instance.stderr.length < 40) instance.stderr.push(chunk.toString())
  })
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`instance ${instance.index} exited at start`)
    const ok = await fetch(`http://127.0.0.1:${instance.port}/healthz?live`).then(
      (response) => response.ok,
      () => false,
    )
    if (ok) {
      instance.routable = true
      return
    }
    await sleep(50)
  }
  throw new Error(`instance ${instance.index} did not answer /healthz?live`)
}

// ---------------------------------------------------------------------------------------
// Delivery with provider-like retries

interface Figures {
  attempts: number
  retries: number
  delivered: number
  undelivered: string[]
  byStatus: Map<string, number>
  fiveXXByCause: Map<string, number>
  unexplained: string[]
  lastSuccessAt: number
}
const figures: Figures = {
  attempts: 0,
  retries: 0,
  delivered: 0,
  undelivered: [],
  byStatus: new Map(),
  fiveXXByCause: new Map(),
  unexplained: [],
  lastSuccessAt: 0,
}
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

/** Why a non-2xx happened, and whether a fault active at the time allows it. */
function classify(status: number, body: string, cause: string | null, at: number) {
  const active = activeFaults(at)
  if (status === 0 || status === 502) {
    const label = cause === 'backend' || status === 502 ? 'instance gone (502)' : 'connection'
    return { cause: label, allowed: active.has('kill') || active.has('sigterm') }
  }
  if (status === 503 && body.includes('temporarily unavailable'))
    return { cause: 'database unavailable (503)', allowed: active.has('database') }
  if (status === 500)
    return {
      cause: 'processing failed (500)',
      allowed: active.has('provider') || active.has('database'),
    }
  return { cause: `other ${status}`, allowed: false }
}

async function deliver(delivery: Delivery, deadline: number) {
  const { event } = delivery
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) figures.retries += 1
    figures.attempts += 1
    let status = 0
    let text = ''
    let cause: string | null = null
    try {
      const response = await fetch(`${balancerUrl}/api/webhooks/${event.provider}`, {
        method: 'POST',
        headers: signedHeaders(delivery),
        body: event.body,
        signal: AbortSignal.timeout(30_000),
      })
      status = response.status
      cause = response.headers.get('x-chaos-cause')
      text = await response.text()
    } catch (error) {
      text = String(error)
    }
    bump(figures.byStatus, status ? String(status) : 'connection error')
    if (status >= 200 && status < 300) {
      figures.delivered += 1
      figures.lastSuccessAt = Date.now()
      return
    }
    if (status === 0 || status >= 500) {
      const verdict = classify(status, text, cause, Date.now())
      bump(figures.fiveXXByCause, verdict.cause)
      if (!verdict.allowed && figures.unexplained.length < 20)
        figures.unexplained.push(
          `${elapsed()}s ${event.provider} ${event.type} ${event.id}: ${status} ${text.slice(0, 200)}`,
        )
    } else if (status !== 429) {
      // A 4xx other than 429 is final for a provider: the event is lost, a failure here.
      figures.undelivered.push(`${event.provider} ${event.id}: ${status} ${text.slice(0, 200)}`)
      return
    }
    // Retry later, as the providers do: exponential backoff with jitter, until the deadline.
    const backoff = Math.min(4_000, 250 * 2 ** attempt) * (0.5 + Math.random())
    if (Date.now() + backoff > deadline) {
      figures.undelivered.push(`${event.provider} ${event.id}: gave up after ${attempt + 1}`)
      return
    }
    await sleep(backoff)
  }
}

async function replay(deliveries: Delivery[], deadline: number) {
  const replayStarted = Date.now()
  const perDeliveryMs = (paceSeconds * 1000) / deliveries.length
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < deliveries.length) {
        const index = next++
        // Spread the stream over the pace, so traffic meets every fault.
        const due = replayStarted + index * perDeliveryMs
        if (due > Date.now()) await sleep(due - Date.now())
        await deliver(deliveries[index], deadline)
      }
    }),
  )
}

// ---------------------------------------------------------------------------------------
// The chaos schedule

const chaosFigures = {
  kills: 0,
  outageSeconds: 0,
  providerFaults: 0,
  sigterm: { exitCode: null as number | null, inFlightAtSignal: 0, stopSeconds: 0 },
  lastFaultEnd: 0,
}

async function killAndRestart(instance: Instance) {
  const end = faultBegins('kill')
  instance.routable = false
  const child = instance.child
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
  chaosFigures.kills += 1
  log(`SIGKILL instance ${instance.index} (in flight: ${instance.inFlight})`)
  await sleep(1_000)
  await startInstance(instance)
  log(`instance ${instance.index} restarted`)
  end()
}

async function databaseOutage() {
  const end = faultBegins('database')
  const down = Date.now()
  log(`PostgreSQL: stop`)
  pgControl('stop')
  await sleep(outageSeconds * 1000)
  pgControl('start')
  for (let i = 0; i < 100; i++) {
    const client = new pg.Client({ connectionString: serverUrl })
    const ok = await client.connect().then(
      () => true,
      () => false,
    )
    await client.end().catch(() => {})
    if (ok) break
    await sleep(100)
  }
  chaosFigures.outageSeconds = (Date.now() - down) / 1000
  log(`PostgreSQL: accepting connections again after ${chaosFigures.outageSeconds.toFixed(1)}s`)
  end()
}

async function providerFaults(seconds: number) {
  const end = faultBegins('provider')
  log(`provider faults on for ${seconds}s (Stripe and Polar 5xx/429/slow)`)
  const until = Date.now() + seconds * 1000
  while (Date.now() < until) {
    // A share of calls: a few faults at a time, renewed every half second.
    stack!.stripe.injectFault({ path: '/v1/', status: 503, count: 2 })
    stack!.stripe.injectFault({ path: '/v1/', status: 429, count: 2 })
    stack!.stripe.injectFault({ path: '/v1/', delayMs: 800, count: 2 })
    // Polar: a fault on an invoice lookup records the payment without its link (filled in
    // later, docs/webhooks.md), which the comparison counts apart as deferred.
    stack!.polar.addFault({ path: '/v1/', status: 503, count: 1 })
    stack!.polar.addFault({ path: '/v1/', status: 429, count: 1 })
    stack!.polar.addFault({ path: '/v1/', delayMs: 800, count: 2 })
    chaosFigures.providerFaults += 10
    await sleep(500)
  }
  stack!.stripe.clearFaults()
  stack!.polar.clearFaults()
  end()
}

async function gracefulStop(instance: Instance) {
  const end = faultBegins('sigterm')
  chaosFigures.sigterm.inFlightAtSignal = instance.inFlight
  const signalled = Date.now()
  instance.routable = false
  const exited = new Promise<number | null>((resolve) =>
    instance.child?.once('exit', (code) => resolve(code)),
  )
  instance.child?.kill('SIGTERM')
  log(`SIGTERM instance ${instance.index} (in flight: ${instance.inFlight})`)
  chaosFigures.sigterm.exitCode = await exited
  chaosFigures.sigterm.stopSeconds = (Date.now() - signalled) / 1000
  log(
    `instance ${instance.index} exited ${chaosFigures.sigterm.exitCode} after ${chaosFigures.sigterm.stopSeconds.toFixed(1)}s; in flight left: ${instance.inFlight}`,
  )
  await startInstance(instance)
  end()
}

async function chaos() {
  const gap = Math.max(1_000, (paceSeconds * 1000) / (killCount + 4))
  await sleep(gap / 2)
  await providerFaults(Math.max(3, gap / 1000))
  for (let k = 0; k < killCount; k++) {
    await sleep(gap / 2)
    await killAndRestart(instances[k % 2])
    if (k === 0) {
      await sleep(gap / 2)
      await databaseOutage()
    }
  }
  await sleep(gap / 2)
  await gracefulStop(instances[0])
  chaosFigures.lastFaultEnd = Date.now()
  log('last fault over')
}

// ---------------------------------------------------------------------------------------

async function main() {
  if (!args['skip-build']) {
    log(`building into ${buildDir}`)
    const result = spawnSync(path.join(PROJECT_ROOT, 'node_modules/.bin/remix'), ['vite:build'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, BUILD_DIR: buildDir },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    if (result.status !== 0) throw new Error('build failed')
  }
  databaseName = `chaos_${process.pid}_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${databaseName}`)
  await admin.end()
  database = await openDatabase({ url: withDatabaseName(serverUrl!, databaseName) })
  await migrate(database)
  stack = withBothStandIns(
    await startAppStack({
      database,
      siteUrl,
      ports: { supabase: PORTS.supabase, stripe: PORTS.stripe, polar: PORTS.polar },
      polarInvoiceDelayMs: 0,
      // A load from one address against one project: the auth server's per-IP limits and
      // mail budget would stop it, and are not what it measures (the local stack's README).
      supabaseAuth: SUITE_AUTH_LIMITS,
    }),
  )
  stack.polar.setWebhookUrl(undefined)
  for (const [index, port] of PORTS.instances.entries())
    instances.push({ index, port, routable: false, inFlight: 0, stderr: [] })
  await Promise.all(instances.map(startInstance))
  balancer = await startBalancer(PORTS.balancer, instances)
  log(
    `two instances (${PORTS.instances.join(', ')}) behind ${balancerUrl}, database ${databaseName}`,
  )

  const userIds = await createUsers(stack, seed, userCount)
  const providers: Provider[] = userIds.map((_id, index) => (index % 2 === 0 ? 'stripe' : 'polar'))
  const polar = new Map<number, PolarResources>()
  await Promise.all(
    userIds.map(async (id, index) => {
      if (providers[index] === 'polar')
        polar.set(index, await createPolarResources(stack!, siteUrl, id, index))
    }),
  )
  const stream = generateStream(
    {
      seed,
      users: userIds.map((id, index) => ({
        id,
        provider: providers[index],
        polar: polar.get(index),
      })),
      events: eventTarget,
      duplicateRate: Number(args.duplicates),
      reorderWindowMs: Number(args['reorder-window']) * 1000,
      polarInvoiceBaseUrl: stack.polar.url,
    },
    polarFields,
  )
  log(
    `stream (seed ${seed}): ${stream.events.length} events, ${stream.deliveries.length} deliveries, concurrency ${concurrency}, paced over ${paceSeconds}s`,
  )

  const replayStarted = Date.now()
  const deadline = replayStarted + deadlineMs
  const progress = setInterval(
    () =>
      log(
        `progress: delivered ${figures.delivered}/${stream.deliveries.length}, requests ${figures.attempts}, ${[...figures.byStatus].map(([s, n]) => `${s}: ${n}`).join(', ')}`,
      ),
    5_000,
  )
  const scraping = setInterval(() => void scrapeMetrics(), 5_000)
  const chaosDone = chaos().catch((error: unknown) => {
    log(`chaos schedule failed: ${String(error)}`)
    throw error
  })
  await replay(stream.deliveries, deadline)
  clearInterval(progress)
  clearInterval(scraping)
  await scrapeMetrics()
  await chaosDone
  const replaySeconds = (Date.now() - replayStarted) / 1000
  const convergeSeconds = Math.max(0, (figures.lastSuccessAt - chaosFigures.lastFaultEnd) / 1000)

  const expected = expectedState(stream.events)
  const { rowsChecked, mismatches, deferredInvoiceLinks } = await verify(stack, userIds, expected, {
    deferredInvoiceLinks: true,
  })
  const missing = mismatches.filter((line) => /missing/.test(line)).length
  const duplicated = mismatches.filter((line) => /more than one row|unexpected/.test(line)).length
  const wrong = mismatches.length - missing - duplicated
  const sigtermOk =
    chaosFigures.sigterm.exitCode === 0 &&
    chaosFigures.sigterm.stopSeconds < 8 &&
    instances[0].inFlight >= 0

  console.log('\n━━ chaos soak figures')
  console.log(
    `  machine           ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, Node ${process.version}`,
  )
  console.log(`  database          PostgreSQL (${databaseName}), restarted by "${pgCtl}"`)
  console.log(`  seed / users      ${seed} / ${userCount}`)
  console.log(
    `  events            ${stream.events.length} unique, ${stream.deliveries.length} deliveries (duplicates ${stream.duplicates}, reordered ${stream.reordered})`,
  )
  console.log(`  requests sent     ${figures.attempts} (retries ${figures.retries})`)
  console.log(
    `  answers           ${[...figures.byStatus].map(([s, n]) => `${s}: ${n}`).join(', ')}`,
  )
  console.log(
    `  5xx by cause      ${[...figures.fiveXXByCause].map(([c, n]) => `${c}: ${n}`).join(', ') || 'none'}`,
  )
  console.log(`  5xx outside faults ${figures.unexplained.length}`)
  for (const line of figures.unexplained) console.log(`    ! ${line}`)
  console.log(`  kills             ${chaosFigures.kills} SIGKILL + restart`)
  console.log(
    `  database outage   ${chaosFigures.outageSeconds.toFixed(1)}s (stop, ${outageSeconds}s, start)`,
  )
  console.log(
    `  provider faults   ${chaosFigures.providerFaults} injected (Stripe and Polar 503/429/800 ms)`,
  )
  console.log(
    `  SIGTERM           exit ${chaosFigures.sigterm.exitCode} after ${chaosFigures.sigterm.stopSeconds.toFixed(1)}s, ${chaosFigures.sigterm.inFlightAtSignal} in flight at the signal finished`,
  )
  console.log(
    `  delivered         ${figures.delivered}/${stream.deliveries.length} (undelivered ${figures.undelivered.length})`,
  )
  for (const line of figures.undelivered.slice(0, 10)) console.log(`    ! ${line}`)
  console.log(`  replay            ${replaySeconds.toFixed(1)}s; total ${elapsed()}s`)
  console.log(`  converged         ${convergeSeconds.toFixed(1)}s after the last fault`)
  console.log(
    `  rows checked      ${rowsChecked} (${expected.subscriptions.size} subscriptions, ${expected.payments.size} payments)`,
  )
  console.log(
    `  invoice links     ${deferredInvoiceLinks} Polar payments recorded without theirs (filled in later by design)`,
  )
  console.log(
    `  metrics           ${metrics.scrapes} scrapes (${metrics.failed} failed: instance down or database out); outbox oldest ${metrics.outboxAgeMax.toFixed(1)}s at most, depth ${metrics.outboxDepthMax} at most`,
  )
  console.log(
    `  webhook outcomes  ${
      outcomeTotals()
        .map(([key, n]) => `${key}: ${n}`)
        .join(', ') || 'none seen'
    }`,
  )
  console.log(`  missing / duplicated / wrong   ${missing} / ${duplicated} / ${wrong}`)
  for (const line of mismatches.slice(0, 15)) console.log(`    - ${line}`)

  const ok =
    mismatches.length === 0 &&
    figures.undelivered.length === 0 &&
    figures.unexplained.length === 0 &&
    sigtermOk &&
    chaosFigures.kills === killCount
  if (!ok)
    for (const instance of instances)
      if (instance.stderr.length)
        console.log(
          `  instance ${instance.index} stderr:\n${instance.stderr.join('').slice(0, 1500)}`,
        )
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
    console.error('[chaos] FAILED:', error)
    await cleanUp()
    process.exit(1)
  },
)
