// `npm run bench -- --mixed` (docs/performance.md, "A mixed day of traffic"; --pool, --caches,
// --rate, --step, --total as it says). Writes bench-results/mixed.json.
import { existsSync, readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import { parseArgs } from 'node:util'

import { openDatabase } from '../../tests/local-stack/database'
import { TOOL_PORTS } from '../ports'
import {
  createUsers,
  logger,
  offsetPorts,
  percentile,
  round,
  send as sendRequest,
  signedHeaders,
  sleep,
  stopServer,
} from '../setup'
import { type Backend, startBalancer } from '../soak/balancer'
import { verify } from '../soak/shared'
import { createRandom, type Delivery, expectedState, generateStream } from '../soak/stream'
import { cpuPerRequest, cpuSnapshot } from './cpu'
import { AUTH_FORMS, authFormRequest, CONTACT_BODY, contactRequest, signInCookie } from './fixtures'
import { runScenario } from './load'
import {
  buildForBench,
  logFile,
  shutdown,
  startApp,
  startBare,
  startStack,
  supabaseCounts,
} from './processes'
import { openStatements, perRequest } from './statements'

const { values: flags } = parseArgs({
  strict: false,
  options: {
    pool: { type: 'string' },
    'acquisition-timeout': { type: 'string', default: '10000' },
    caches: { type: 'boolean', default: false },
    rate: { type: 'string' },
    step: { type: 'string', default: '8' },
    total: { type: 'string', default: '150' },
    'port-offset': { type: 'string', default: '0' },
    'no-build': { type: 'boolean', default: false },
  },
})
const number = (name: keyof typeof flags) => Number(flags[name] as string)
const POOL = flags.pool === undefined ? 10 : number('pool')
const ACQUISITION_TIMEOUT_MS = number('acquisition-timeout')
const STEP_SECONDS = number('step')
const P99_LIMIT_MS = 300
/** A request unanswered this long is hung (the pool's acquisition timeout plus a margin). */
const CLIENT_TIMEOUT_MS = ACQUISITION_TIMEOUT_MS + 5_000
const offset = number('port-offset')
const { instances: instancePorts, ...ports } = TOOL_PORTS.mixed
const PORTS = offsetPorts(ports, offset)
const SITE_URL = `http://localhost:${PORTS.balancer}`
const { log } = logger('mixed')
const load = () => Math.round(os.loadavg()[0] * 10) / 10

const PROFILE = [
  { kind: 'anonymous page', share: 0.6 },
  { kind: 'signed-in page', share: 0.25 },
  { kind: 'auth form', share: 0.05 },
  { kind: 'webhook', share: 0.08 },
  { kind: 'contact', share: 0.02 },
] as const
type Kind = (typeof PROFILE)[number]['kind']
const SIGNED_IN_PAGES = ['/dashboard', '/dashboard/settings/billing']
const CONTACT = { method: 'POST', path: '/api/contact', body: CONTACT_BODY }

if (!process.env.DATABASE_URL) {
  console.log(
    '[mixed] needs the PostgreSQL server: DATABASE_URL=postgres://… (docs/performance.md)',
  )
  process.exit(75)
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
const { next: random, pick } = createRandom(20261128)

/** One request through the balancer; `instance`: the one that answered, -1 for none. */
async function send(kind: Kind, request: http.RequestOptions & { body?: string }) {
  const startedAt = performance.now()
  const options = { port: PORTS.balancer, agent, ...request }
  const { status, headers } = await sendRequest(options, request.body, CLIENT_TIMEOUT_MS)
  const ms = performance.now() - startedAt
  const instance = Number(headers['x-chaos-instance'] ?? -1)
  return { kind, status, ms, retryAfter: Boolean(headers['retry-after']), instance }
}
type Answer = Awaited<ReturnType<typeof send>>

/** The machine's busy and total CPU ticks (/proc/stat). */
function machineTicks() {
  const line = /^cpu +(.*)$/m.exec(readFileSync('/proc/stat', 'utf8'))![1]
  const ticks = line.split(' ').map(Number)
  const total = ticks.reduce((sum, n) => sum + n, 0)
  return { busy: total - ticks[3] - ticks[4], total }
}

/** The pool's time-outs (PGRST003) in the instances' logs so far. */
const poolTimeoutsLogged = () =>
  [logFile('mixed-0.log'), logFile('mixed-1.log')]
    .filter((file) => existsSync(file))
    .reduce((count, file) => count + readFileSync(file, 'utf8').split('PGRST003').length - 1, 0)

const msAt = (answers: Answer[], p: number) => {
  const times = answers.map((answer) => answer.ms)
  return Math.round(percentile(times, p))
}

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
  if (!flags['no-build']) buildForBench(log)
  const pool = { size: POOL, acquisitionTimeoutMs: ACQUISITION_TIMEOUT_MS }
  const stack = await startStack(SITE_URL, PORTS, pool)
  const reader = await openStatements(stack.databaseUrl!)
  if ('skipped' in reader) throw new Error(reader.skipped)
  const statements = reader
  const database = await openDatabase({ url: stack.databaseUrl! })
  log(`local stack up: ${stack.database}; PostgREST pool ${POOL}, ${ACQUISITION_TIMEOUT_MS} ms`)

  const backends = instancePorts.map((port, index) => ({
    index,
    port: port + offset,
    routable: true,
    inFlight: 0,
  }))
  const processes: Awaited<ReturnType<typeof startApp>>[] = []
  const startInstances = async (cachesOff: string[]) => {
    for (const child of processes.splice(0)) await stopServer(child)
    for (const { port, index } of backends) {
      const env = { ...stack.env, CACHES_OFF: cachesOff[index] }
      processes.push(await startApp(port, env, `mixed-${index}.log`))
    }
  }
  await startInstances(['', ''])
  const balancer = await startBalancer(PORTS.balancer, backends as Backend[], (req) =>
    String(req.headers['x-forwarded-for'] ?? '127.0.0.1'),
  )

  // The floor: the bare Remix document route, closed loop at 10 connections.
  const bare = await startBare(PORTS.bare)
  const bareScenario = { name: 'bare Remix document route @10', path: '/', connections: 10 }
  const bareOrigin = `http://127.0.0.1:${PORTS.bare}`
  await runScenario(bareOrigin, bareScenario, { durationSeconds: 2, maxRequests: 5_000 })
  const bareCpu = cpuSnapshot({ app: bare.pid }, false)
  const measured = { durationSeconds: 5, maxRequests: 50_000 }
  const bareRun = await runScenario(bareOrigin, bareScenario, measured)
  const bareFigures = {
    rps: bareRun.rps,
    appCpuMs: cpuPerRequest(bareCpu, cpuSnapshot({ app: bare.pid }, false), bareRun.requests).app,
    loadAverage: load(),
  }
  bare.kill('SIGTERM')
  log(`bare Remix document route: ${bareFigures.rps} req/s, ${bareFigures.appCpuMs} ms CPU/req`)

  // 60 subscribers of the soak's stream, 20 of them signed in.
  const users = await createUsers(stack.env.SUPABASE_URL, 60, 'mixed')
  const cookies = await Promise.all(
    users.slice(0, 20).map((user) => signInCookie(stack.env, user.email)),
  )
  const stream = generateStream({
    seed: 1,
    users: users.map((user) => ({ id: user.id, provider: 'stripe' as const })),
    events: 800,
    duplicateRate: 0.15,
    reorderWindowMs: 3_600_000,
    polarInvoiceBaseUrl: '',
  })

  let nextDelivery = 0
  let counter = 0
  const retries = new Set<Promise<void>>()
  /** Delivers `delivery`; a non-2xx is delivered again later, as the provider does. */
  const deliver = async ({ event }: Delivery, attempt = 0): Promise<Answer> => {
    const answer = await send('webhook', {
      method: 'POST',
      path: `/api/webhooks/${event.provider}`,
      headers: signedHeaders(event.provider, event.body, event.id),
      body: event.body,
    })
    if (answer.status < 200 || answer.status >= 300) {
      const backoff = Math.min(4_000, 250 * 2 ** attempt) * (0.5 + random())
      const retry = sleep(backoff).then(() => void deliver({ event, duplicate: true }, attempt + 1))
      retries.add(retry)
      void retry.finally(() => retries.delete(retry))
    }
    return answer
  }
  const request = (kind: Kind): Promise<Answer> => {
    const index = counter++
    if (kind === 'anonymous page') return send(kind, { path: pick(['/', '/pricing']) })
    if (kind === 'signed-in page')
      return send(kind, { path: pick(SIGNED_IN_PAGES), headers: { cookie: pick(cookies) } })
    if (kind === 'auth form') {
      const { path, fields } = pick(AUTH_FORMS)
      return send(kind, { method: 'POST', path, ...authFormRequest(SITE_URL, fields, index) })
    }
    if (kind === 'contact') return send(kind, { ...CONTACT, ...contactRequest(index) })
    return deliver(stream.deliveries[nextDelivery++ % stream.deliveries.length])
  }
  const drawKind = (): Kind => {
    let roll = random()
    for (const { kind, share } of PROFILE) if ((roll -= share) < 0) return kind
    return 'anonymous page'
  }
  /** 800 requests of the profile, 8 at a time: the instances' JIT and pools, not reported. */
  const warmUp = async () => {
    let sent = 0
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (sent++ < 800) await request(drawKind())
      }),
    )
  }

  /** One open-loop step at `rate` for STEP_SECONDS, then its answers drained. */
  const step = async (label: string, rate: number) => {
    const pids = { app0: processes[0].pid, app1: processes[1].pid, stack: stack.pid }
    const cpuBefore = cpuSnapshot(pids, true)
    const machineBefore = machineTicks()
    const workBefore = await statements.snapshot()
    const poolBefore = poolTimeoutsLogged()
    const stepStarted = performance.now()
    const pending: Promise<Answer>[] = []
    while (performance.now() - stepStarted < STEP_SECONDS * 1000) {
      const due = Math.floor(((performance.now() - stepStarted) / 1000) * rate)
      while (pending.length < due) pending.push(request(drawKind()))
      await sleep(2)
    }
    const answers = await Promise.all(pending)
    const wallMs = performance.now() - stepStarted
    const cpu = cpuPerRequest(cpuBefore, cpuSnapshot(pids, true), 1)
    const machineAfter = machineTicks()
    await sleep(300) // work queued after the answers
    const work = perRequest(workBefore, await statements.snapshot(), answers.length)
    const statuses: Record<string, Record<string, number>> = {}
    for (const { kind, status } of answers) {
      statuses[kind] ??= {}
      statuses[kind][status] = (statuses[kind][status] ?? 0) + 1
    }
    const groups = { app: cpu.app0 + cpu.app1, database: cpu.database, stack: cpu.stack }
    const result = {
      label,
      rate,
      seconds: round(wallMs / 1000),
      sent: answers.length,
      p50: msAt(answers, 0.5),
      p99: msAt(answers, 0.99),
      errors: answers.filter((answer) => isError(answer.status)).length,
      statuses,
      cpuMsPerRequest: Object.fromEntries(
        Object.entries(groups).map(([k, ms]) => [k, round(ms / answers.length)]),
      ),
      cores: Object.fromEntries(Object.entries(groups).map(([k, ms]) => [k, round(ms / wallMs)])),
      machineBusy: round(
        (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
      ),
      statements: work.statements,
      dbExecMs: work.execMs,
      poolTimeouts: poolTimeoutsLogged() - poolBefore,
      /** Each instance's app CPU per request it answered, and its p50. */
      instances: [cpu.app0, cpu.app1].map((ms, index) => {
        const own = answers.filter((answer) => answer.instance === index)
        return { cpuMs: round(ms / Math.max(1, own.length)), p50: msAt(own, 0.5) }
      }),
      loadAverage: load(),
      violations: [...new Set(answers.map(violation).filter(Boolean))],
    }
    log(`${label}: ${JSON.stringify({ ...result, statuses: undefined, violations: undefined })}`)
    return result
  }

  const report: Record<string, unknown> = {
    date: new Date(),
    profile: PROFILE,
    pool,
    bare: bareFigures,
  }
  const failures: string[] = []
  if (flags.caches) {
    // Each cache off on one instance while the other has every cache, under the same traffic
    // at the same moment; the first pair (none off) is the instances' own difference.
    const runs = []
    for (const off of ['', 'pages', 'sessions', 'grace', 'keys', 'sessions,keys']) {
      await startInstances(['', off])
      await warmUp()
      const jwksFetches = async () => (await supabaseCounts())['/.well-known/jwks.json'] ?? 0
      const jwksBefore = await jwksFetches()
      const label = `off on instance 1: ${off || 'none'}`
      const { instances, statements } = await step(label, flags.rate ? number('rate') : 40)
      const jwks = (await jwksFetches()) - jwksBefore
      const [on, without] = instances
      const factor = round(without.cpuMs / on.cpuMs)
      runs.push({ off: off || 'none', on, without, factor, jwks, statements })
    }
    report.caches = runs
    console.log('\noff | all on: app ms/req | off: app ms/req | factor | JWKS fetches | stmts/req')
    for (const run of runs)
      console.log(
        `${run.off} | ${run.on.cpuMs} | ${run.without.cpuMs} | ×${run.factor} | ${run.jwks} | ${run.statements}`,
      )
  } else {
    const steps = []
    const ladderStarted = Date.now()
    await warmUp()
    for (let rate = 20; rate <= 400; rate = Math.round(rate * 1.3)) {
      if (Date.now() - ladderStarted + STEP_SECONDS * 1000 > number('total') * 1000) break
      const result = await step(`${rate} req/s`, rate)
      steps.push(result)
      if (result.p99 > P99_LIMIT_MS || result.errors > 0) break
    }
    const knee = steps.filter((s) => s.p99 <= P99_LIMIT_MS && s.errors === 0).at(-1)
    const past = steps.at(-1) !== knee ? steps.at(-1) : undefined
    // What gave out: the pool if it timed out, else the machine's CPU, the app's, the database's.
    const gaveOut = !past
      ? 'nothing: the maximum rate held'
      : past.poolTimeouts > 0
        ? `the PostgREST pool (${past.poolTimeouts} acquisition time-outs)`
        : past.machineBusy >= 0.9
          ? `the machine's CPU (${Math.round(past.machineBusy * 100)} % busy; cores ${JSON.stringify(past.cores)})`
          : past.cores.app >= 1.8
            ? `app CPU (cores ${JSON.stringify(past.cores)})`
            : past.cores.database >= 0.9
              ? `the database's CPU (cores ${JSON.stringify(past.cores)})`
              : `none saturated (cores ${JSON.stringify(past.cores)}): latency from queueing`
    Object.assign(report, { steps, knee, gaveOut })
    if (knee)
      console.log(
        `\nknee: ${knee.label}, p99 ${knee.p99} ms; per request ${JSON.stringify(knee.cpuMsPerRequest)} ms CPU, ${knee.statements} statements; app CPU ×${round(knee.cpuMsPerRequest.app / bareFigures.appCpuMs)} the bare document route's`,
      )
    console.log(`gave out first: ${gaveOut}`)
    if (flags.pool !== undefined) {
      const rate = flags.rate ? number('rate') : Math.round((knee?.rate ?? 20) * 1.5)
      const overload = await step(`pool ${POOL}, ${rate} req/s (beyond the knee)`, rate)
      report.overload = overload
      console.log(
        `\npool ${POOL} at ${rate} req/s: ${JSON.stringify(overload.statuses)}; ${overload.poolTimeouts} pool time-outs`,
      )
      for (const line of overload.violations) console.log(`  ! ${line}`)
      failures.push(...overload.violations)
    }
  }

  // Every delivery of the stream, then the providers' retries, then the soak's row check.
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
  report.rowCheck = { rowsChecked, mismatches: mismatches.length, undelivered: retries.size }
  console.log(
    `\nrow check: ${rowsChecked} rows, ${mismatches.length} wrong or missing, ${retries.size} undelivered`,
  )
  for (const line of mismatches.slice(0, 10)) console.log(`  - ${line}`)
  if (mismatches.length > 0 || retries.size > 0) failures.push('row check')
  await writeFile(logFile('mixed.json'), `${JSON.stringify(report, null, 2)}\n`)
  balancer.close()
  await database.close()
  await statements.close()
  return failures
}

const failures = await main().catch((error: unknown) => {
  console.error(error)
  return ['error']
})
await shutdown()
console.log(failures.length ? `\nFAILED: ${failures.length} violation(s)` : '\nPASSED')
process.exit(failures.length ? 1 : 0)
