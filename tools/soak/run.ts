// `npm run soak` (docs/webhooks.md, "Soak test") and `--chaos` (docs/operations.md, "Chaos
// soak"; exits 75, skipped, without DATABASE_URL and SOAK_PG_CTL).
import { execSync } from 'node:child_process'
import type http from 'node:http'
import { parseArgs } from 'node:util'

import pg from 'pg'

import { SUITE_AUTH_LIMITS } from '../../tests/local-stack/stack'
import { startAppStack, withBothStandIns } from '../../tests/setup/stack'
import { TOOL_PORTS } from '../ports'
import {
  build,
  createUsers,
  logger,
  scratchDatabase,
  type Server,
  signedHeaders,
  sleep,
  startServer,
  stopServer,
} from '../setup'
import { type Backend, startBalancer } from './balancer'
import { createPolarResources, verify } from './shared'
import { type Delivery, expectedState, generateStream, type PolarResources } from './stream'
import { runStripeEmulatorPhase } from './stripe-emulator-phase'

const { values: args } = parseArgs({
  options: {
    chaos: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    users: { type: 'string', default: '200' },
    events: { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '24' },
    timeout: { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'build-dir': { type: 'string', default: '.build-soak' },
    'port-offset': { type: 'string', default: '0' },
    kills: { type: 'string', default: '3' },
    outage: { type: 'string', default: '3' },
    pace: { type: 'string', default: '40' },
    deadline: { type: 'string', default: '240' },
  },
})
const chaos = args.chaos
const seed = Number(args.seed)
const userCount = Number(args.users)
const concurrency = Number(args.concurrency)
const killCount = chaos ? Number(args.kills) : 0
/** The stream is spread over at least this many seconds, so that every fault meets traffic. */
const paceMs = chaos ? Number(args.pace) * 1000 : 0
const buildDir = args['build-dir']
const offset = Number(args['port-offset'])
const ports = chaos ? TOOL_PORTS.chaos : { ...TOOL_PORTS.soak, instances: [TOOL_PORTS.soak.app] }
const instancePorts = ports.instances.map((port) => port + offset)
const frontPort = 'balancer' in ports ? ports.balancer + offset : instancePorts[0]
const siteUrl = `http://localhost:${frontPort}`
const frontUrl = `http://127.0.0.1:${frontPort}`
const name = chaos ? 'chaos' : 'soak'
const { elapsed, log } = logger(name)

const pgCtl = process.env.SOAK_PG_CTL
if (chaos && (!process.env.DATABASE_URL || !pgCtl)) {
  console.log(
    `[chaos] skipped: the chaos soak stops and starts a PostgreSQL server: DATABASE_URL=postgres://… SOAK_PG_CTL="pg_ctlcluster 15 <cluster>", a server the run may stop (docs/operations.md)`,
  )
  process.exit(75)
}

let stack: Awaited<ReturnType<typeof startAppStack>> | undefined
let database: Awaited<ReturnType<typeof scratchDatabase>> | undefined
let balancer: http.Server | undefined
const instances: (Backend & { child?: Server })[] = instancePorts.map((port, index) => ({
  index,
  port,
  routable: false,
  inFlight: 0,
}))
// Even on a crash, no instance outlives the run to hold its port.
process.on('exit', () => instances.forEach((instance) => instance.child?.kill('SIGKILL')))
const pgControl = (action: 'stop -m fast' | 'start') =>
  execSync(`${pgCtl} ${action}`, { stdio: 'inherit' })

async function cleanUp() {
  for (const instance of instances) instance.child?.kill('SIGKILL')
  balancer?.close()
  await stack?.close().catch(() => {})
  if (chaos) {
    try {
      pgControl('start')
    } catch {
      // already running
    }
  }
  await database?.drop()
}
const timeoutSeconds = Number(args.timeout ?? (chaos ? 420 : 240))
const hardTimeout = setTimeout(() => {
  console.error(`[${name}] FAILED: hard timeout of ${timeoutSeconds}s reached`)
  void cleanUp().finally(() => process.exit(2))
}, timeoutSeconds * 1000)

async function startInstance(instance: (typeof instances)[number]) {
  instance.child = await startServer({
    port: instance.port,
    buildDir,
    env: {
      ...stack!.env,
      SITE_URL: siteUrl,
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      RATE_LIMIT_STORE: 'postgres',
      SHUTDOWN_TIMEOUT_MS: '8000',
    },
  })
  instance.routable = true
}

// ── Faults: when each was active, to tell the allowed non-2xx from the others ─────────────

type FaultKind = 'kill' | 'database' | 'provider' | 'sigterm'
const faults: { kind: FaultKind; start: number; end?: number }[] = []
/** An answer may arrive a little after its fault ended (a request started during it). */
const GRACE_MS = 5_000
async function during<T>(kind: FaultKind, work: () => Promise<T>) {
  const fault: (typeof faults)[number] = { kind, start: Date.now() }
  faults.push(fault)
  const result = await work()
  fault.end = Date.now()
  return result
}
const faultsAt = (at: number) =>
  new Set(
    faults.filter((f) => f.start <= at && at <= (f.end ?? Infinity) + GRACE_MS).map((f) => f.kind),
  )

/** Why a non-200 happened, and whether a fault active then allows it. */
function classify(status: number, body: string, at = Date.now()) {
  const active = faultsAt(at)
  if (status === 0 || status === 502)
    return { cause: 'instance gone', allowed: active.has('kill') || active.has('sigterm') }
  if (status === 503 && body.includes('temporarily unavailable'))
    return { cause: 'database unavailable (503)', allowed: active.has('database') }
  if (status === 500)
    return {
      cause: 'processing failed (500)',
      allowed: active.has('provider') || active.has('database'),
    }
  return { cause: `other ${status}`, allowed: false }
}

// ── Delivery, retried as the providers retry ─────────────────────────────────────────────

const figures = {
  attempts: 0,
  delivered: 0,
  lastSuccessAt: 0,
  byStatus: new Map<string, number>(),
  byCause: new Map<string, number>(),
  unexplained: [] as string[],
  undelivered: [] as string[],
}
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

async function deliver({ event }: Delivery, deadline: number) {
  for (let attempt = 0; ; attempt++) {
    figures.attempts += 1
    let status = 0
    let text = ''
    try {
      const response = await fetch(`${frontUrl}/api/webhooks/${event.provider}`, {
        method: 'POST',
        headers: signedHeaders(event.provider, event.body, event.id),
        body: event.body,
        signal: AbortSignal.timeout(30_000),
      })
      status = response.status
      text = await response.text()
    } catch (error) {
      text = String(error)
    }
    bump(figures.byStatus, status ? String(status) : 'connection error')
    if (status === 200) {
      figures.delivered += 1
      figures.lastSuccessAt = Date.now()
      return
    }
    const verdict = classify(status, text)
    bump(figures.byCause, verdict.cause)
    const line = `${elapsed()}s ${event.provider} ${event.type} ${event.id}: ${status} ${text.slice(0, 200)}`
    if (!verdict.allowed && figures.unexplained.length < 20) figures.unexplained.push(line)
    // A 4xx other than 429 is final for a provider: the event is lost.
    const retried = status === 0 || status === 429 || status >= 500
    const backoff = Math.min(4_000, 250 * 2 ** attempt) * (0.5 + Math.random())
    if (!retried || (!chaos && attempt >= 2) || Date.now() + backoff > deadline) {
      figures.undelivered.push(line)
      return
    }
    await sleep(backoff)
  }
}

async function replay(deliveries: Delivery[], deadline: number) {
  const replayStarted = Date.now()
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let index = next++; index < deliveries.length; index = next++) {
        const due = replayStarted + (index * paceMs) / deliveries.length
        if (due > Date.now()) await sleep(due - Date.now())
        await deliver(deliveries[index], deadline)
      }
    }),
  )
}

// ── The chaos schedule ───────────────────────────────────────────────────────────────────

const chaosFigures = {
  kills: 0,
  outageSeconds: 0,
  sigtermExit: null as number | null,
  stopSeconds: 0,
  lastFaultEnd: 0,
}

async function killAndRestart(instance: (typeof instances)[number]) {
  instance.routable = false
  log(`SIGKILL instance ${instance.index} (in flight: ${instance.inFlight})`)
  await stopServer(instance.child!, 'SIGKILL')
  chaosFigures.kills += 1
  await sleep(1_000)
  await startInstance(instance)
}

async function databaseOutage() {
  log('PostgreSQL: stop')
  const down = Date.now()
  pgControl('stop -m fast')
  await sleep(Number(args.outage) * 1000)
  pgControl('start')
  for (let i = 0; i < 100; i++) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
    const up = await client.connect().then(
      () => true,
      () => false,
    )
    await client.end().catch(() => {})
    if (up) break
    await sleep(100)
  }
  chaosFigures.outageSeconds = (Date.now() - down) / 1000
  log(`PostgreSQL: accepting connections again after ${chaosFigures.outageSeconds.toFixed(1)}s`)
}

async function providerFaults(seconds: number) {
  log(`provider faults for ${seconds}s (Stripe and Polar 503, 429, 800 ms)`)
  for (const until = Date.now() + seconds * 1000; Date.now() < until; await sleep(500)) {
    // A share of calls: a few faults at a time, renewed every half second. A Polar fault on
    // an invoice lookup records the payment without its link (filled in later).
    for (const fault of [{ status: 503 }, { status: 429 }, { delayMs: 800 }]) {
      stack!.stripe!.injectFault({ path: '/v1/', count: 2, ...fault })
      stack!.polar!.addFault({ path: '/v1/', count: 1, ...fault })
    }
  }
  stack!.stripe!.clearFaults()
  stack!.polar!.clearFaults()
}

async function gracefulStop(instance: (typeof instances)[number]) {
  instance.routable = false
  log(`SIGTERM instance ${instance.index} (in flight: ${instance.inFlight})`)
  const signalled = Date.now()
  chaosFigures.sigtermExit = await stopServer(instance.child!)
  chaosFigures.stopSeconds = (Date.now() - signalled) / 1000
  log(
    `instance ${instance.index} exited ${chaosFigures.sigtermExit} after ${chaosFigures.stopSeconds}s`,
  )
  await startInstance(instance)
}

async function chaosSchedule() {
  const gap = Math.max(1_000, paceMs / (killCount + 4))
  await sleep(gap / 2)
  await during('provider', () => providerFaults(Math.max(3, gap / 1000)))
  for (let k = 0; k < killCount; k++) {
    await sleep(gap / 2)
    await during('kill', () => killAndRestart(instances[k % 2]))
    if (k === 0) {
      await sleep(gap / 2)
      await during('database', databaseOutage)
    }
  }
  await sleep(gap / 2)
  await during('sigterm', () => gracefulStop(instances[0]))
  chaosFigures.lastFaultEnd = Date.now()
}

// ── The run ──────────────────────────────────────────────────────────────────────────────

async function main() {
  if (!args['skip-build']) {
    log(`building into ${buildDir}`)
    build(buildDir)
  }
  if (process.env.DATABASE_URL) database = await scratchDatabase(name)
  stack = await startAppStack({
    databaseUrl: database?.url,
    siteUrl,
    ports: {
      supabase: ports.supabase + offset,
      stripe: ports.stripe + offset,
      polar: ports.polar + offset,
    },
    polarInvoiceDelayMs: 0,
    stripeDelivery: { mode: 'shuffled', seed },
    // A load from one address against one project: the auth server's per-IP limits and mail
    // budget would stop it, and are not what it measures (the local stack's README).
    supabaseAuth: SUITE_AUTH_LIMITS,
  })
  const both = withBothStandIns(stack)
  // Only the replayed stream reaches the app: the Polar emulator's own events wait undelivered.
  both.polar.setWebhookUrl(undefined)
  await Promise.all(instances.map(startInstance))
  if (chaos) balancer = await startBalancer(frontPort, instances)
  log(
    `${instances.length} instance(s) at ${frontUrl}; ${database ? `database ${database.name}` : 'PGlite'}`,
  )

  const users = await createUsers(stack.supabase.url, userCount, `soak-${seed}`)
  const polar = new Map<number, PolarResources>()
  await Promise.all(
    users.map(async (user, index) => {
      if (index % 2 === 1)
        polar.set(index, await createPolarResources(both, siteUrl, user.id, index))
    }),
  )
  const stream = generateStream({
    seed,
    users: users.map((user, index) => ({
      id: user.id,
      provider: index % 2 === 0 ? 'stripe' : 'polar',
      polar: polar.get(index),
    })),
    events: Number(args.events),
    duplicateRate: 0.15,
    reorderWindowMs: 3_600_000,
    polarInvoiceBaseUrl: both.polar.url,
  })
  log(`${userCount} users; ${stream.events.length} events, ${stream.deliveries.length} deliveries`)

  const replayStarted = Date.now()
  const deadline = replayStarted + (chaos ? Number(args.deadline) * 1000 : timeoutSeconds * 1000)
  const schedule = chaos ? chaosSchedule() : Promise.resolve()
  await replay(stream.deliveries, deadline)
  await schedule
  const replaySeconds = (Date.now() - replayStarted) / 1000
  const expected = expectedState(stream.events)
  const { rowsChecked, mismatches, deferredInvoiceLinks } = await verify(
    both,
    users.map((user) => user.id),
    expected,
    { deferredInvoiceLinks: chaos },
  )
  let phaseOk = true
  const lines = [
    `events            ${stream.events.length} unique, ${stream.deliveries.length} deliveries (duplicates ${stream.duplicates}, reordered ${stream.reordered}, same-second ${stream.sameSecond})`,
    `requests          ${figures.attempts} (${[...figures.byStatus].map(([s, n]) => `${s}: ${n}`).join(', ')}); concurrency ${concurrency}`,
    `non-200 by cause  ${[...figures.byCause].map(([c, n]) => `${c}: ${n}`).join(', ') || 'none'}`,
    `outside faults    ${figures.unexplained.length}`,
    ...figures.unexplained.map((line) => `  ! ${line}`),
    `delivered         ${figures.delivered}/${stream.deliveries.length}`,
    ...figures.undelivered.slice(0, 10).map((line) => `  ! undelivered: ${line}`),
    `replay            ${replaySeconds.toFixed(1)}s (${(figures.attempts / replaySeconds).toFixed(0)} req/s)`,
    `rows checked      ${rowsChecked} (${expected.subscriptions.size} subscriptions, ${expected.payments.size} payments), mismatches ${mismatches.length}`,
    ...mismatches.slice(0, 15).map((line) => `  - ${line}`),
  ]
  if (chaos) {
    const converged = Math.max(0, (figures.lastSuccessAt - chaosFigures.lastFaultEnd) / 1000)
    lines.push(
      `kills             ${chaosFigures.kills} SIGKILL + restart; database outage ${chaosFigures.outageSeconds.toFixed(1)}s`,
      `SIGTERM           exit ${chaosFigures.sigtermExit} after ${chaosFigures.stopSeconds.toFixed(1)}s`,
      `converged         ${converged.toFixed(1)}s after the last fault`,
      `invoice links     ${deferredInvoiceLinks} Polar payments recorded without theirs (filled in later by design)`,
    )
    phaseOk =
      chaosFigures.sigtermExit === 0 &&
      chaosFigures.stopSeconds < 8 &&
      chaosFigures.kills === killCount
  } else {
    const emulatorUsers = Math.max(3, Math.round(userCount / 10))
    const phaseUsers = await createUsers(stack.supabase.url, emulatorUsers, `soak-emulator-${seed}`)
    const phase = await runStripeEmulatorPhase(
      both,
      phaseUsers.map((user) => user.id),
    )
    lines.push(
      `emulator phase    ${phase.users} users, ${phase.events} events, ${phase.deliveries} deliveries (shuffled: ${phase.duplicates} duplicates, ${phase.failedDeliveries} not 2xx), ${phase.rowsChecked} rows checked, ${phase.mismatches.length} mismatches`,
      ...phase.mismatches.slice(0, 15).map((line) => `  - ${line}`),
    )
    phaseOk = phase.mismatches.length === 0 && phase.failedDeliveries === 0
  }
  const ok =
    mismatches.length === 0 &&
    figures.unexplained.length === 0 &&
    figures.undelivered.length === 0 &&
    phaseOk
  if (!ok)
    for (const instance of instances)
      lines.push(
        `instance ${instance.index} stderr: ${instance.child?.errors.join('').slice(0, 1500)}`,
      )
  console.log(`\n━━ ${name} figures (seed ${seed}, ${userCount} users, total ${elapsed()}s)`)
  for (const line of lines) console.log(`  ${line}`)
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
    console.error(`[${name}] FAILED:`, error)
    await cleanUp()
    process.exit(1)
  },
)
