/**
 * `npm run bench -- --mixed`: a mixed day of traffic (docs/performance.md, "A mixed day of
 * traffic") against two production instances (server.js on the bench build) behind the chaos
 * soak's round-robin balancer (tools/soak/balancer.ts), on the PostgreSQL server.
 *
 * The profile (PROFILE): anonymous pages, signed-in pages, auth forms, webhook deliveries of the
 * soak's seeded Stripe stream (duplicates and reordering included; a non-2xx is delivered again
 * later, as the provider does) and contact posts, drawn at random from a fixed seed. Open loop:
 * requests are sent at the step's rate whatever the answers, at rising rates (×RATE_FACTOR per
 * step, `--step` seconds each, up to `--max-rate` and `--total` seconds) until a step's p99
 * passes 300 ms or an error (a 5xx, a 429, a timeout) appears. Per step: app CPU, database CPU
 * (its processes) and execution time (pg_stat_statements), statements per request, each
 * process's share of a core, the pool's time-outs (PGRST003 in the app's logs). The knee is the
 * last step that held; the resource that gave out is named from the next step's figures. The
 * bare Remix app's document route is measured in the same run (closed loop, 10 connections)
 * for the ratios. Afterwards every webhook of the stream is delivered, and the soak's row check
 * (tools/soak/shared.ts `verify`) compares user_subscriptions and payment_history with it.
 *
 * Flags: --pool <n>: the pool's size (`db-pool`, default 10) and, after the ladder, one step at
 * 1.5× the knee (or --rate) in which every answer must be well formed: no 500, every request
 * answered within the acquisition timeout (--acquisition-timeout <ms>, default 10000) plus
 * 5 s, a page's or API's 503 with Retry-After, a webhook's failure a non-2xx the provider
 * retries; exits 1 on any violation or a missing or wrong row. --caches: each cache on the
 * request path turned off (CACHES_OFF, .env.example) on one instance while the other keeps
 * all, at one rate (--rate, default 40): each instance's app CPU per request it answered.
 * --no-build, --port-offset <n>, --step <s> (8), --max-rate <rps> (400), --total <s> (150).
 * Writes bench-results/mixed.json.
 */
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'

import { openDatabase, PROJECT_ROOT } from '../../tests/local-stack/database'
import { TOOL_PORTS } from '../ports'
import { type Backend, startBalancer } from '../soak/balancer'
import { polarFields, verify } from '../soak/shared'
import { createRandom, type Delivery, expectedState, generateStream } from '../soak/stream'
import { cpuPerRequest, cpuSnapshot } from './cpu'
import {
  authFormRequest,
  CONTACT_BODY,
  contactRequest,
  createUsers,
  signInCookie,
} from './fixtures'
import { runScenario } from './load'
import { signedHeaders } from '../setup'
import {
  buildForBench,
  shutdown,
  startApp,
  startBare,
  startStack,
  supabaseCounts,
} from './processes'
import { openStatements, perRequest, type StatementReader } from './statements'

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  strict: false,
  options: {
    pool: { type: 'string' },
    'acquisition-timeout': { type: 'string', default: '10000' },
    caches: { type: 'boolean', default: false },
    rate: { type: 'string' },
    step: { type: 'string', default: '8' },
    'max-rate': { type: 'string', default: '400' },
    total: { type: 'string', default: '150' },
    'port-offset': { type: 'string', default: '0' },
    'no-build': { type: 'boolean', default: false },
  },
})
const number = (name: keyof typeof flags) => Number(flags[name] as string)
const poolRun = flags.pool !== undefined
const POOL = poolRun ? number('pool') : 10
const ACQUISITION_TIMEOUT_MS = number('acquisition-timeout')
const STEP_SECONDS = number('step')
const MAX_RATE = number('max-rate')
const TOTAL_SECONDS = number('total')
const START_RATE = 20
const RATE_FACTOR = 1.3
const P99_LIMIT_MS = 300
/** A request unanswered this long is hung (the pool's acquisition timeout plus a margin). */
const CLIENT_TIMEOUT_MS = ACQUISITION_TIMEOUT_MS + 5_000
const offset = number('port-offset')
const PORTS = Object.fromEntries(
  Object.entries(TOOL_PORTS.mixed).map(([name, port]) => [
    name,
    Array.isArray(port) ? port.map((p: number) => p + offset) : (port as number) + offset,
  ]),
) as {
  instances: number[]
  balancer: number
  bare: number
  stripe: number
  polar: number
  supabase: number
}
const SITE_URL = `http://localhost:${PORTS.balancer}`
const BUILD_DIR = process.env.BUILD_DIR ?? '.build-bench'
const BARE_BUILD_DIR = '.build-bench-bare'
const USERS = 60
const WARM_UP = 800
const SIGNED_IN = 20
const started = Date.now()
const log = (line: string) =>
  console.log(`[mixed ${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const load = () => Math.round(os.loadavg()[0] * 10) / 10

/** The load profile: shares of all requests (docs/performance.md). */
const PROFILE = [
  { kind: 'anonymous page', share: 0.6 },
  { kind: 'signed-in page', share: 0.25 },
  { kind: 'auth form', share: 0.05 },
  { kind: 'webhook', share: 0.08 },
  { kind: 'contact', share: 0.02 },
] as const
type Kind = (typeof PROFILE)[number]['kind']

if (!process.env.DATABASE_URL) {
  console.log(
    '[mixed] needs the PostgreSQL server: DATABASE_URL=postgres://… (docs/performance.md)',
  )
  process.exit(75)
}
process.env.BENCH_SUPABASE_PORT = String(PORTS.supabase)
process.env.BENCH_STRIPE_PORT = String(PORTS.stripe)
process.env.BENCH_POLAR_PORT = String(PORTS.polar)
process.env.BENCH_DB_POOL = String(POOL)
process.env.BENCH_DB_POOL_ACQUISITION_TIMEOUT_MS = String(ACQUISITION_TIMEOUT_MS)

interface Answer {
  kind: Kind
  status: number
  ms: number
  retryAfter: boolean
  /** The instance that answered (the balancer's `x-chaos-instance`), -1 for none. */
  instance: number
}

/** One step's figures. */
interface Step {
  label: string
  rate: number
  seconds: number
  sent: number
  answered: number
  p50: number
  p99: number
  errors: number
  statuses: Record<string, Record<string, number>>
  cpuMsPerRequest: Record<string, number>
  /** Share of one core each group used during the step (two instances: up to 2 for the app). */
  cores: Record<string, number>
  /** The machine's CPU busy, all cores, 0–1. */
  machineBusy: number
  statements: number
  dbExecMs: number
  rowsWritten: number
  poolTimeouts: number
  /** Each instance's app CPU per request it answered, and its p50. */
  instances: { requests: number; cpuMs: number; p50: number }[]
  loadAverage: number
  violations: string[]
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
const { next: random, pick } = createRandom(20261128)
const AUTH_FORMS: { path: string; fields: Record<string, string> }[] = [
  { path: '/sign-in', fields: { intent: 'password', password: 'not-the-password-1' } },
  { path: '/sign-in', fields: { intent: 'magic-link' } },
  { path: '/forgot-password', fields: {} },
]

function send(request: {
  method: string
  path: string
  headers?: Record<string, string>
  body?: string
}) {
  const startedAt = performance.now()
  return new Promise<Omit<Answer, 'kind'>>((resolve) => {
    const done = (status: number, answer?: http.IncomingMessage) =>
      resolve({
        status,
        ms: performance.now() - startedAt,
        retryAfter: Boolean(answer?.headers['retry-after']),
        instance: Number(answer?.headers['x-chaos-instance'] ?? -1),
      })
    const outgoing = http.request(
      { host: '127.0.0.1', port: PORTS.balancer, agent, ...request },
      (answer) => {
        answer.resume()
        answer.on('end', () => done(answer.statusCode ?? 0, answer))
        answer.on('error', () => done(0))
      },
    )
    outgoing.setTimeout(CLIENT_TIMEOUT_MS, () => outgoing.destroy())
    outgoing.on('error', () => done(0))
    outgoing.end(request.body)
  })
}

/** The machine's busy and total CPU ticks (/proc/stat). */
function machineTicks() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1)
  const ticks = fields.map(Number)
  const total = ticks.reduce((sum, n) => sum + n, 0)
  return { busy: total - ticks[3] - ticks[4], total }
}

/** Lines naming the pool's time-out in the instances' logs so far. */
function poolTimeoutsLogged() {
  let count = 0
  for (const index of [0, 1]) {
    try {
      const text = readFileSync(path.join(PROJECT_ROOT, `bench-results/mixed-${index}.log`), 'utf8')
      count += text.split('PGRST003').length - 1
    } catch {
      // not started yet
    }
  }
  return count
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

/** An answer that breaks the rules of a full pool (--pool), or '' when it is well formed. */
function violation({ kind, status, ms, retryAfter }: Answer) {
  if (status === 0) return `${kind}: no answer within ${CLIENT_TIMEOUT_MS} ms`
  if (status === 500) return `${kind}: 500`
  if (ms > CLIENT_TIMEOUT_MS) return `${kind}: answered after ${Math.round(ms)} ms`
  if (kind !== 'webhook' && status === 503 && !retryAfter) return `${kind}: 503 without Retry-After`
  if (kind === 'webhook' && status >= 400 && status < 500 && status !== 429)
    return `webhook: ${status}, final for the provider (the event is lost)`
  return ''
}
const isError = (status: number) => status === 0 || status >= 500 || status === 429

async function main() {
  if (!flags['no-build']) buildForBench(BUILD_DIR, BARE_BUILD_DIR, log)
  const stack = await startStack(SITE_URL)
  log(`local stack up: ${stack.database}; PostgREST pool ${POOL}, ${ACQUISITION_TIMEOUT_MS} ms`)
  const reader = await openStatements(stack.databaseUrl!)
  if ('skipped' in reader) throw new Error(reader.skipped)
  const statements: StatementReader = reader
  const database = await openDatabase({ url: stack.databaseUrl! })

  const backends: (Backend & { pid?: number })[] = PORTS.instances.map((port, index) => ({
    index,
    port,
    routable: true,
    inFlight: 0,
  }))
  const instanceProcesses: ChildProcess[] = []
  /** (Re)starts both instances, each with its CACHES_OFF. */
  const startInstances = async (cachesOff: [string, string]) => {
    for (const child of instanceProcesses.splice(0)) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    for (const backend of backends) {
      const child = await startApp({
        port: backend.port,
        buildDir: BUILD_DIR,
        env: { ...stack.env, CACHES_OFF: cachesOff[backend.index] },
        logName: `mixed-${backend.index}.log`,
      })
      instanceProcesses.push(child)
      backend.pid = child.pid
    }
  }
  await startInstances(['', ''])
  const balancer = await startBalancer(PORTS.balancer, backends, (req) =>
    String(req.headers['x-forwarded-for'] ?? '127.0.0.1'),
  )
  log(`two instances (${PORTS.instances.join(', ')}) behind ${SITE_URL}`)

  // The floor: the bare Remix document route, closed loop at 10 connections.
  const bare = await startBare(PORTS.bare, BARE_BUILD_DIR)
  const bareScenario = { name: 'bare Remix document route @10', path: '/', connections: 10 }
  await runScenario(`http://127.0.0.1:${PORTS.bare}`, bareScenario, {
    durationSeconds: 2,
    maxRequests: 5_000,
  })
  const bareCpu = cpuSnapshot({ app: bare.pid }, false)
  const bareRun = await runScenario(`http://127.0.0.1:${PORTS.bare}`, bareScenario, {
    durationSeconds: 5,
    maxRequests: 50_000,
  })
  const bareFigures = {
    rps: bareRun.rps,
    p99: bareRun.p99,
    appCpuMs: cpuPerRequest(bareCpu, cpuSnapshot({ app: bare.pid }, false), bareRun.requests).app,
    loadAverage: load(),
  }
  bare.kill('SIGTERM')
  log(`bare Remix document route: ${bareFigures.rps} req/s, ${bareFigures.appCpuMs} ms CPU/req`)

  // Users: the stream's subscribers; the first SIGNED_IN of them signed in.
  const users = await createUsers(stack.env.SUPABASE_URL, USERS, 'mixed')
  const cookies = await Promise.all(
    users.slice(0, SIGNED_IN).map((user) => signInCookie(stack.env, user.email)),
  )
  const stream = generateStream(
    {
      seed: 1,
      users: users.map((user) => ({ id: user.id, provider: 'stripe' as const })),
      events: 800,
      duplicateRate: 0.15,
      reorderWindowMs: 3_600_000,
      polarInvoiceBaseUrl: '',
    },
    polarFields,
  )
  log(`${USERS} users, ${SIGNED_IN} signed in; stream: ${stream.deliveries.length} deliveries`)

  let nextDelivery = 0
  let counter = 0
  const retries = new Set<Promise<void>>()
  /** Delivers `delivery`; a non-2xx is delivered again later, as the provider does. */
  const deliver = async (delivery: Delivery, attempt = 0): Promise<Answer> => {
    const answer = await send({
      method: 'POST',
      path: `/api/webhooks/${delivery.event.provider}`,
      headers: signedHeaders(delivery.event.provider, delivery.event.body, delivery.event.id),
      body: delivery.event.body,
    })
    if (answer.status < 200 || answer.status >= 300) {
      const backoff = Math.min(4_000, 250 * 2 ** attempt) * (0.5 + random())
      const retry = sleep(backoff)
        .then(() => deliver(delivery, attempt + 1))
        .then(() => {})
      retries.add(retry)
      void retry.finally(() => retries.delete(retry))
    }
    return { kind: 'webhook', ...answer }
  }
  const request = async (kind: Kind): Promise<Answer> => {
    const index = counter++
    const answer = await (() => {
      switch (kind) {
        case 'anonymous page':
          return send({ method: 'GET', path: pick(['/', '/pricing']) })
        case 'signed-in page':
          return send({
            method: 'GET',
            path: pick(['/dashboard', '/dashboard/settings/billing']),
            headers: { cookie: pick(cookies) },
          })
        case 'auth form': {
          const form = pick(AUTH_FORMS)
          const { body, headers } = authFormRequest(SITE_URL, form.fields, index)
          return send({ method: 'POST', path: form.path, body, headers })
        }
        case 'contact':
          return send({
            method: 'POST',
            path: '/api/contact',
            body: CONTACT_BODY,
            ...contactRequest(index),
          })
        case 'webhook':
          return deliver(stream.deliveries[nextDelivery++ % stream.deliveries.length])
      }
    })()
    return { kind, ...answer }
  }
  /** WARM_UP requests of the profile, 8 at a time: the instances' JIT and pools, not reported. */
  const warmUp = async () => {
    let sent = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (sent++ < WARM_UP) await request(drawKind())
      }),
    )
  }
  const drawKind = (): Kind => {
    let roll = random()
    for (const { kind, share } of PROFILE) if ((roll -= share) < 0) return kind
    return 'anonymous page'
  }

  /** One open-loop step at `rate` for `seconds`, then its answers drained. */
  const step = async (label: string, rate: number, seconds: number): Promise<Step> => {
    const pids = { app0: backends[0].pid, app1: backends[1].pid, stack: stack.pid }
    const cpuBefore = cpuSnapshot(pids, true)
    const ownBefore = process.cpuUsage()
    const machineBefore = machineTicks()
    const workBefore = await statements.snapshot()
    const poolBefore = poolTimeoutsLogged()
    const stepStarted = performance.now()
    const pending: Promise<Answer>[] = []
    while (performance.now() - stepStarted < seconds * 1000) {
      const due = Math.floor(((performance.now() - stepStarted) / 1000) * rate)
      while (pending.length < due) pending.push(request(drawKind()))
      await sleep(2)
    }
    const answers = await Promise.all(pending)
    const wallMs = performance.now() - stepStarted
    const cpu = cpuPerRequest(cpuBefore, cpuSnapshot(pids, true), 1)
    const own = process.cpuUsage(ownBefore)
    const machineAfter = machineTicks()
    await sleep(300) // work queued after the answers
    const work = perRequest(workBefore, await statements.snapshot(), answers.length)
    const latencies = answers.map((answer) => answer.ms).sort((a, b) => a - b)
    const statuses: Step['statuses'] = {}
    for (const { kind, status } of answers) {
      statuses[kind] ??= {}
      statuses[kind][status] = (statuses[kind][status] ?? 0) + 1
    }
    const groups = {
      app: cpu.app0 + cpu.app1,
      database: cpu.database,
      stack: cpu.stack,
      'load generator and balancer': (own.user + own.system) / 1000,
    }
    const violations = [...new Set(answers.map(violation).filter(Boolean))]
    const instances = [cpu.app0, cpu.app1].map((ms, index) => {
      const own = answers.filter((answer) => answer.instance === index)
      const sorted = own.map((answer) => answer.ms).sort((a, b) => a - b)
      return {
        requests: own.length,
        cpuMs: Math.round((ms / Math.max(1, own.length)) * 100) / 100,
        p50: Math.round(percentile(sorted, 0.5)),
      }
    })
    const result: Step = {
      label,
      rate,
      seconds: Math.round(wallMs / 100) / 10,
      sent: answers.length,
      answered: answers.filter((answer) => answer.status !== 0).length,
      p50: Math.round(percentile(latencies, 0.5)),
      p99: Math.round(percentile(latencies, 0.99)),
      errors: answers.filter((answer) => isError(answer.status)).length,
      statuses,
      cpuMsPerRequest: Object.fromEntries(
        Object.entries(groups).map(([name, ms]) => [
          name,
          Math.round((ms / answers.length) * 100) / 100,
        ]),
      ),
      cores: Object.fromEntries(
        Object.entries(groups).map(([name, ms]) => [name, Math.round((ms / wallMs) * 100) / 100]),
      ),
      machineBusy:
        Math.round(
          ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) *
            100,
        ) / 100,
      statements: work.statements,
      dbExecMs: work.execMs,
      rowsWritten: work.rowsWritten,
      poolTimeouts: poolTimeoutsLogged() - poolBefore,
      instances,
      loadAverage: load(),
      violations,
    }
    log(
      `${label}: ${result.sent} sent, p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.errors} errors; app ${result.cpuMsPerRequest.app} ms CPU/req (${result.cores.app} cores), database ${result.cpuMsPerRequest.database} ms CPU/req (${result.cores.database} cores), ${result.statements} statements/req; machine ${Math.round(result.machineBusy * 100)} % busy, load ${result.loadAverage}`,
    )
    return result
  }

  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    machine: { cores: os.availableParallelism(), cpu: os.cpus()[0]?.model, node: process.version },
    profile: PROFILE,
    pool: { size: POOL, acquisitionTimeoutMs: ACQUISITION_TIMEOUT_MS },
    bare: bareFigures,
  }
  const failures: string[] = []

  if (flags.caches) {
    // Each cache off on one instance while the other has every cache, side by side under the
    // same traffic (round robin) at the same moment: the machine's drift touches both alike.
    // The first pair has every cache on both, the instances' own difference.
    const rate = flags.rate ? number('rate') : 40
    const runs = []
    for (const off of ['', 'pages', 'sessions', 'grace', 'keys', 'sessions,keys']) {
      await startInstances(['', off])
      await warmUp()
      const authBefore = await supabaseCounts()
      const measured = await step(`off on instance 1: ${off || 'none'}`, rate, STEP_SECONDS)
      const authAfter = await supabaseCounts()
      const jwks =
        (authAfter['/.well-known/jwks.json'] ?? 0) - (authBefore['/.well-known/jwks.json'] ?? 0)
      const [on, without] = measured.instances
      runs.push({
        off: off || 'none',
        onCpuMs: on.cpuMs,
        offCpuMs: without.cpuMs,
        cpuFactor: Math.round((without.cpuMs / on.cpuMs) * 100) / 100,
        onP50: on.p50,
        offP50: without.p50,
        jwksFetches: jwks,
        statements: measured.statements,
        dbExecMs: measured.dbExecMs,
        loadAverage: measured.loadAverage,
      })
    }
    report.caches = runs
    console.log(
      `\nbare Remix document route: ${bareFigures.appCpuMs} ms CPU/req (load average ${bareFigures.loadAverage})`,
    )
    console.log(
      'off          | all on: app ms/req, p50 | off: app ms/req, p50 | factor | JWKS fetches | stmts/req | load',
    )
    for (const run of runs)
      console.log(
        `${run.off.padEnd(13)}| ${run.onCpuMs}, ${run.onP50} | ${run.offCpuMs}, ${run.offP50} | ×${run.cpuFactor} | ${run.jwksFetches} | ${run.statements} | ${run.loadAverage}`,
      )
  } else {
    // The ladder: rising rates until p99 passes P99_LIMIT_MS or errors appear.
    const steps: Step[] = []
    const ladderStarted = Date.now()
    await warmUp()
    for (let rate = START_RATE; rate <= MAX_RATE; rate = Math.round(rate * RATE_FACTOR)) {
      if (Date.now() - ladderStarted + STEP_SECONDS * 1000 > TOTAL_SECONDS * 1000) break
      const result = await step(`${rate} req/s`, rate, STEP_SECONDS)
      steps.push(result)
      if (result.p99 > P99_LIMIT_MS || result.errors > 0) break
    }
    const knee = steps.filter((s) => s.p99 <= P99_LIMIT_MS && s.errors === 0).at(-1)
    const past = steps.at(-1) !== knee ? steps.at(-1) : undefined
    const gaveOut = past ? limitingResource(past) : 'nothing: the maximum rate held'
    report.steps = steps
    report.knee = knee
    report.gaveOut = gaveOut
    if (knee) {
      const rps = Math.round(knee.sent / knee.seconds)
      console.log(
        `\nknee: ${knee.label} (${rps} req/s answered, p99 ${knee.p99} ms, load average ${knee.loadAverage})`,
      )
      console.log(
        `  per request: app CPU ${knee.cpuMsPerRequest.app} ms, database CPU ${knee.cpuMsPerRequest.database} ms (executing ${knee.dbExecMs} ms), stack (PostgREST and auth stand-ins) ${knee.cpuMsPerRequest.stack} ms, ${knee.statements} statements, ${knee.rowsWritten} rows written`,
      )
      console.log(
        `  against the bare Remix document route (${bareFigures.rps} req/s at 10 connections, ${bareFigures.appCpuMs} ms CPU/req, load average ${bareFigures.loadAverage}): app CPU per request ×${(knee.cpuMsPerRequest.app / bareFigures.appCpuMs).toFixed(2)}, knee req/s ×${(rps / bareFigures.rps).toFixed(2)}`,
      )
    } else console.log('\nno step held: the first rate is already past the knee')
    console.log(`  gave out first: ${gaveOut}`)

    if (poolRun) {
      const rate = flags.rate ? number('rate') : Math.round((knee?.rate ?? START_RATE) * 1.5)
      const overload = await step(
        `pool ${POOL}, ${rate} req/s (beyond the knee)`,
        rate,
        STEP_SECONDS,
      )
      report.overload = overload
      console.log(
        `\npool ${POOL} at ${rate} req/s: answers by kind and status ${JSON.stringify(overload.statuses)}`,
      )
      console.log(`  pool time-outs logged: ${overload.poolTimeouts}; p99 ${overload.p99} ms`)
      for (const line of overload.violations) console.log(`  ! ${line}`)
      failures.push(...overload.violations)
    }
  }

  // Every delivery of the stream, then the providers' retries, then the soak's row check.
  log(
    `delivering the rest of the stream (${Math.max(0, stream.deliveries.length - nextDelivery)} deliveries) and the retries`,
  )
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (nextDelivery < stream.deliveries.length)
        await deliver(stream.deliveries[nextDelivery++])
    }),
  )
  const retryDeadline = Date.now() + 60_000
  while (retries.size > 0 && Date.now() < retryDeadline) await Promise.all([...retries])
  const { rowsChecked, mismatches } = await verify(
    { database },
    users.map((user) => user.id),
    expectedState(stream.events),
  )
  const missing = mismatches.filter((line) => /missing/.test(line)).length
  console.log(
    `\nrow check: ${rowsChecked} rows, ${missing} missing, ${mismatches.length - missing} wrong or unexpected${retries.size ? `; ${retries.size} deliveries still failing` : ''}`,
  )
  for (const line of mismatches.slice(0, 10)) console.log(`  - ${line}`)
  report.rowCheck = {
    rowsChecked,
    missing,
    wrong: mismatches.length - missing,
    undelivered: retries.size,
  }
  if (mismatches.length > 0 || retries.size > 0) failures.push('row check')

  await mkdir(path.join(PROJECT_ROOT, 'bench-results'), { recursive: true })
  await writeFile(
    path.join(PROJECT_ROOT, 'bench-results/mixed.json'),
    `${JSON.stringify(report, null, 2)}\n`,
  )
  console.log(
    `figures written to bench-results/mixed.json; ${((Date.now() - started) / 1000).toFixed(0)} s`,
  )
  balancer.close()
  await database.close()
  await statements.close()
  return failures
}

/** What gave out at a step past the knee, from its figures. */
function limitingResource(past: Step) {
  const { cores, machineBusy } = past
  if (past.poolTimeouts > 0)
    return `the PostgREST pool (${past.poolTimeouts} acquisition time-outs)`
  const shares = Object.entries(cores)
    .sort((a, b) => b[1] - a[1])
    .map(([name, used]) => `${name} ${used}`)
    .join(', ')
  if (machineBusy >= 0.9)
    return `the machine's CPU (${Math.round(machineBusy * 100)} % busy; cores used: ${shares}; load average ${past.loadAverage})`
  if (cores.app >= 1.8) return `app CPU (both instances' cores: ${shares})`
  if (cores.database >= 0.9) return `the database's CPU (${shares})`
  return `none saturated (machine ${Math.round(machineBusy * 100)} % busy; ${shares}): latency from queueing`
}

const failures = await main().catch((error: unknown) => {
  console.error(error)
  return ['error']
})
await shutdown()
console.log(failures.length ? `\nFAILED: ${failures.length} violation(s)` : '\nPASSED')
process.exit(failures.length ? 1 : 0)
