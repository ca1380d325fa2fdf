// `npm run bench` (docs/performance.md). Flags: --no-budgets, --no-build, --no-lighthouse,
// --no-big-data, --port-offset <n>; `--rtt <ms>` runs latency.ts, `--mixed` mixed.ts.
// Environment: BENCH_DURATION (seconds per run, 8), BENCH_ONLY=<regexp>, BENCH_CPU_PROF=<dir>,
// BUILD_DIR, BENCH_DB_POOL and BENCH_DB_POOL_ACQUISITION_TIMEOUT_MS (PostgREST's pool).
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import os from 'node:os'
import { parseArgs } from 'node:util'

import { TOOL_PORTS } from '../ports'
import { logger, offsetPorts, send, sleep } from '../setup'
import { BIG_DATA, seedBigData, type SeedResult } from './big-data'
import { FIRST_LOAD_JS_BUDGET_BYTES, kb, reportBundle, weighBuild } from './bundle-size'
import { type CpuGroups, cpuPerRequest, cpuSnapshot } from './cpu'
import {
  AUTH_FORMS,
  authFormRequest,
  benchFixtures,
  CONTACT_BODY,
  contactRequest,
} from './fixtures'
import { type LighthouseScores, runLighthouse } from './lighthouse'
import { type RunFigures, runScenario, type Scenario } from './load'
import {
  BUILD_DIR,
  buildForBench,
  logFile,
  shutdown,
  startApp,
  startBare,
  startStack,
  supabaseCounts,
} from './processes'
import { openStatements, perRequest, type StatementTotals } from './statements'

const { values: flags } = parseArgs({
  strict: false,
  options: {
    'no-budgets': { type: 'boolean' },
    'no-build': { type: 'boolean' },
    'no-lighthouse': { type: 'boolean' },
    'no-big-data': { type: 'boolean' },
    'port-offset': { type: 'string', default: '0' },
    rtt: { type: 'string' },
    mixed: { type: 'boolean' },
  },
})
if (flags.rtt) await import('./latency')
if (flags.mixed) await import('./mixed')

const loadAtStart = os.loadavg()[0]
const PORTS = offsetPorts(TOOL_PORTS.bench, Number(flags['port-offset']))
const ORIGIN = `http://127.0.0.1:${PORTS.app}`
const SITE_URL = `http://localhost:${PORTS.app}`
const BARE_ORIGIN = `http://127.0.0.1:${PORTS.bare}`
const DURATION = Number(process.env.BENCH_DURATION ?? 8)
const WORK_REQUESTS = 50
const onPostgres = Boolean(process.env.DATABASE_URL)
const { log } = logger('bench')

// `baseline`: the bare route of the same kind and concurrency; `bigData`: measured again.
type BenchScenario = Scenario & { bare?: boolean; baseline?: string; bigData?: boolean }
const BIG_DATA_SUFFIX = ' [100x data]'

interface Row extends RunFigures {
  bare: boolean
  signedIn: boolean
  bigData: boolean
  baseline: string
  ratio: number
  cpuMsPerRequest: CpuGroups
  database?: StatementTotals & { statuses: Record<string, number> }
}

if (!flags['no-build']) buildForBench(log)
const bundle = weighBuild(BUILD_DIR)
const rows: Row[] = []
let lighthouse: LighthouseScores[] | { skipped: string } = { skipped: '--no-lighthouse' }
let pricingFromCache = false
const signedInAuth: Record<string, number> = {}
let database = ''
let statementsSkipped = onPostgres ? '' : 'PGlite: only on the PostgreSQL server'
let idle: { seconds: number; polls: number; perPoll: StatementTotals; plan: string } | undefined
let bigData: SeedResult | undefined
let exitCode = 0

try {
  const stack = await startStack(SITE_URL, PORTS, {
    size: Number(process.env.BENCH_DB_POOL ?? 10),
    acquisitionTimeoutMs: Number(process.env.BENCH_DB_POOL_ACQUISITION_TIMEOUT_MS ?? 10_000),
  })
  database = stack.database
  const opened = stack.databaseUrl ? await openStatements(stack.databaseUrl) : undefined
  if (opened && 'skipped' in opened) statementsSkipped = opened.skipped
  const statements = opened && !('skipped' in opened) ? opened : undefined
  const bareProcess = await startBare(PORTS.bare)
  const appProcess = await startApp(PORTS.app, stack.env)
  log(`stack (${database}), the bare app and the app are up`)
  const fixtures = await benchFixtures(ORIGIN, stack.env)
  const { cookie } = fixtures
  log('fixtures ready: users, session cookie, a subscription and 12 payments')

  let counter = 0
  const BARE_50 = 'bare Remix resource route @50'
  const BARE_10 = 'bare Remix resource route @10'
  const BARE_DOCUMENT = 'bare Remix document route @10'
  const post = (path: string, connections: 10 | 50, next: Scenario['next']) => {
    const baseline = connections === 50 ? BARE_50 : BARE_10
    return { method: 'POST', path, connections, next, baseline } as const
  }
  const hook = (name: string, provider: string, connections: 10 | 50, next: Scenario['next']) => ({
    name,
    ...post(`/api/webhooks/${provider}`, connections, next),
    bigData: true,
  })
  const page = (name: string, path: string, headers?: Record<string, string>) =>
    ({ name, path, connections: 10, headers, baseline: BARE_DOCUMENT }) as const
  const scenarios: BenchScenario[] = [
    { name: BARE_50, bare: true, path: '/text', connections: 50 },
    { name: BARE_10, bare: true, path: '/text', connections: 10 },
    { name: BARE_DOCUMENT, bare: true, path: '/', connections: 10 },
    {
      // Reported: Remix's own cost of a webhook-sized post, the floor under every webhook row.
      name: 'bare Remix resource route, post of a webhook body @50',
      ...post('/webhook', 50, () => ({ headers: { 'content-type': 'application/json' } })),
      bare: true,
      baseline: undefined,
      body: fixtures.duplicate,
    },
    { name: 'healthz@50', path: '/healthz?live', connections: 50, baseline: BARE_50 },
    { name: 'healthz@10', path: '/healthz?live', connections: 10, baseline: BARE_10 },
    hook('stripe webhook, unique writes', 'stripe', 50, fixtures.stripeWrite),
    // The write path's latency when it is not queueing.
    hook('stripe webhook, unique writes @10', 'stripe', 10, fixtures.stripeWrite),
    hook('stripe webhook, duplicates', 'stripe', 50, fixtures.duplicateWrite),
    hook('polar webhook, unique writes', 'polar', 50, fixtures.polarWrite),
    {
      name: 'POST /api/contact',
      ...post('/api/contact', 10, () => contactRequest(counter++)),
      body: CONTACT_BODY,
    },
    ...AUTH_FORMS.map(({ name, path, fields, status }) => ({
      name,
      ...post(path, 10, () => authFormRequest(SITE_URL, fields, counter++)),
      expectedStatus: status,
    })),
    page('GET / (anonymous)', '/'),
    page('GET / (a cookie: rendered)', '/', { cookie: 'consent=yes' }),
    { ...page('GET /pricing (anonymous)', '/pricing'), bigData: true },
    // Any cookie bypasses the anonymous page cache: what each render costs.
    page('GET /pricing (a cookie: rendered)', '/pricing', { cookie: 'consent=yes' }),
    ...['/dashboard', '/dashboard/settings/billing'].map((path) => ({
      ...page(`GET ${path} (signed in)`, path, { cookie }),
      bigData: true,
    })),
  ]

  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : null
  const selected = scenarios.filter((scenario) => !only || only.test(scenario.name))
  let authBefore: Record<string, number> | undefined

  // A path's database work: requests one after another once the load run's last ones ended,
  // so that none is half counted whatever the machine's load.
  const countWork = async (scenario: BenchScenario) => {
    if (!statements) return undefined
    for (let quiet = 0, waited = 0; quiet < 2 && waited < 20; waited++) {
      const seen = (await statements.snapshot()).statements
      await sleep(500)
      quiet = (await statements.snapshot()).statements === seen ? quiet + 1 : 0
    }
    const before = await statements.snapshot()
    const statuses: Record<string, number> = {}
    for (let index = 0; index < WORK_REQUESTS; index++) {
      const fresh = scenario.next?.() ?? {}
      const { status } = await send(
        { port: PORTS.app, ...scenario, headers: { ...scenario.headers, ...fresh.headers } },
        fresh.body ?? scenario.body,
      )
      statuses[status] = (statuses[status] ?? 0) + 1
    }
    await sleep(300) // work queued after the answer
    return { ...perRequest(before, await statements.snapshot(), WORK_REQUESTS), statuses }
  }

  const measure = async (scenario: BenchScenario, suffix = '') => {
    const origin = scenario.bare ? BARE_ORIGIN : ORIGIN
    const pids = { app: (scenario.bare ? bareProcess : appProcess).pid, stack: stack.pid }
    // A warm-up at the same concurrency (JIT, pools), not reported.
    await runScenario(origin, scenario, { durationSeconds: 2, maxRequests: 5_000 })
    const signedIn = Boolean(scenario.headers?.cookie)
    if (signedIn && !authBefore) authBefore = await supabaseCounts()
    const cpuBefore = cpuSnapshot(pids, onPostgres)
    const result = await runScenario(origin, scenario, {
      durationSeconds: DURATION,
      maxRequests: 100_000,
    })
    const name = `${scenario.name}${suffix}`
    // Against the bare route of the same phase (the host drifts between phases).
    const baseline = scenario.baseline ? `${scenario.baseline}${suffix}` : ''
    const floor = rows.find((row) => row.name === baseline)
    rows.push({
      ...result,
      name,
      bare: Boolean(scenario.bare),
      signedIn,
      bigData: suffix !== '',
      baseline,
      // No ratio when BENCH_ONLY left the bare route out (its targets are then reported).
      ratio: floor ? Math.round((result.rps / floor.rps) * 100) / 100 : Number.NaN,
      cpuMsPerRequest: cpuPerRequest(cpuBefore, cpuSnapshot(pids, onPostgres), result.requests),
      database: scenario.bare ? undefined : await countWork(scenario),
    })
    log(`${name}: ${result.rps} req/s, p99 ${result.p99} ms, ${result.errors} errors`)
  }
  for (const scenario of selected) await measure(scenario)
  const pricing = await fetch(`${ORIGIN}/pricing`)
  await pricing.arrayBuffer()
  pricingFromCache = pricing.headers.get('server-timing')?.includes('page-cache') ?? false

  if (statements) {
    // An idle instance: what its outbox polls cost when nothing is due (every 5 s).
    const seconds = 16
    log(`idle for ${seconds} s: the outbox's polls`)
    const before = await statements.snapshot()
    await sleep(seconds * 1000)
    const after = await statements.snapshot()
    const polls = after.outboxPolls - before.outboxPolls
    const plan = await statements.emptyPollPlan()
    idle = { seconds, polls, perPoll: perRequest(before, after, polls), plan }
  }
  if (stack.databaseUrl && !flags['no-big-data']) {
    log(`seeding ${JSON.stringify(BIG_DATA)}`)
    bigData = await seedBigData(stack.databaseUrl, fixtures.reader.id)
    log(`seeded in ${bigData.seconds} s`)
    for (const scenario of selected.filter((s) => s.bigData || s.bare))
      await measure(scenario, BIG_DATA_SUFFIX)
  }
  const authAfter = await supabaseCounts()
  for (const [key, value] of Object.entries(authAfter))
    if (value !== (authBefore?.[key] ?? 0)) signedInAuth[key] = value - (authBefore?.[key] ?? 0)

  if (!flags['no-lighthouse']) {
    log('lighthouse: /, /pricing, /contact')
    lighthouse = await runLighthouse(ORIGIN, ['/', '/pricing', '/contact']).catch(
      (error: unknown) => ({ skipped: `lighthouse failed: ${String(error)}` }),
    )
  }
  await statements?.close()
} catch (error) {
  console.error(error)
  exitCode = 2
} finally {
  await shutdown()
}

// ── report ───────────────────────────────────────────────────────────────────────────────
const machine = {
  cores: os.availableParallelism(),
  cpu: /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1],
  node: process.version,
  database,
  loadAverage: [loadAtStart, os.loadavg()[0]].map((load) => load.toFixed(2)).join(' → '),
}
console.log(`\nmachine: ${JSON.stringify(machine)}; ${DURATION} s per run\n`)
const cpuColumns = onPostgres ? ['app', 'stack', 'database'] : ['app', 'stack']
const WORK_COLUMNS = ['statements', 'rowsWritten', 'blocksDirtied', 'execMs'] as const
const header = ['path', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'x bare']
header.push(...cpuColumns.map((name) => `${name} cpu ms`))
if (!statementsSkipped) header.push(...WORK_COLUMNS.map((key) => `${key}/req`))
const table = rows.map((row) => [
  row.name,
  ...[row.connections, row.rps, row.p50, row.p99, row.errors].map(String),
  row.baseline ? row.ratio.toFixed(2) : '-',
  ...cpuColumns.map((name) => (row.cpuMsPerRequest[name] ?? 0).toFixed(2)),
  ...(statementsSkipped ? [] : WORK_COLUMNS.map((key) => row.database?.[key].toFixed(2) ?? '-')),
])
const widths = header.map((title, column) =>
  Math.max(title.length, ...table.map((cells) => cells[column].length)),
)
for (const cells of [header, ...table])
  console.log(
    cells.map((cell, i) => (i ? cell.padStart(widths[i]) : cell.padEnd(widths[0]))).join('  '),
  )
if (statementsSkipped) console.log(`database work per request not counted: ${statementsSkipped}`)
for (const row of rows)
  if (Object.keys(row.statuses).some((status) => !status.startsWith('2')))
    console.log(`  ${row.name}: statuses ${JSON.stringify(row.statuses)}`)
console.log('')
const overBundle = reportBundle(bundle)

// ── targets and budgets ──────────────────────────────────────────────────────────────────
const budgets: { name: string; status: 'pass' | 'fail' | 'report'; detail: string }[] = []
const row = (name: string) => rows.find((candidate) => candidate.name === name)
const check = (name: string, ok: boolean, detail: string, enforce = true) =>
  budgets.push({ name, status: !enforce ? 'report' : ok ? 'pass' : 'fail', detail })
/** Asserted on the PostgreSQL server; reported on PGlite, or without the bare route. */
const target = (name: string, ok: boolean, detail: string, measured = true) =>
  check(`target: ${name}`, ok, detail, onPostgres && measured)
const ms = (value: number | undefined) => `${(value ?? 0).toFixed(2)} ms`
/** A target per named row (`%s`: its name); one on the ratio is reported without the floor. */
const targets = (
  names: string[],
  title: string,
  ok: (r: Row) => boolean,
  detail: (r: Row) => string,
  onRatio = true,
) => {
  for (const r of names.map(row))
    if (r)
      target(title.replace('%s', r.name), ok(r), detail(r), !onRatio || Number.isFinite(r.ratio))
}

const signedInLoads = rows.filter((r) => r.signedIn).reduce((sum, r) => sum + r.requests, 0)
if (signedInLoads > 0) {
  // During the signed-in runs no /auth/v1 request, but for at most one JWKS fetch (the
  // cache is per process); and one session check per load (warm-ups are checked too).
  const authRequests = Object.entries(signedInAuth).filter(([key]) => !key.startsWith('rest:'))
  const jwks = signedInAuth['/.well-known/jwks.json'] ?? 0
  check(
    'signed-in page loads make no auth-server round trip',
    authRequests.every(([key]) => key === '/.well-known/jwks.json') && jwks <= 1,
    `${signedInLoads} loads; auth requests during them: ${JSON.stringify(Object.fromEntries(authRequests))}`,
  )
  const checks = signedInAuth['rest:/rpc/session_is_active'] ?? 0
  check(
    'every signed-in page load checks its session once, in the database',
    checks >= signedInLoads && checks <= signedInLoads + 20_000,
    `session_is_active calls: ${checks} for ${signedInLoads} measured loads (plus warm-ups)`,
  )
}
targets(
  ['healthz@50', 'healthz@10'],
  '%s >= 0.80 of the bare route',
  (r) => r.ratio >= 0.8,
  (r) =>
    `ratio ${r.ratio}; app CPU ${ms(r.cpuMsPerRequest.app)} vs the bare route's ${ms(row(r.baseline)?.cpuMsPerRequest.app)}`,
)
targets(
  ['stripe webhook, duplicates'],
  'stripe duplicates >= 0.70 of the bare route',
  (r) => r.ratio >= 0.7,
  (r) => `${r.rps} req/s, ratio ${r.ratio}`,
)
targets(
  ['stripe webhook, unique writes', 'polar webhook, unique writes'],
  '%s: app CPU <= 1.0 ms per request, >= 0.40 of the bare route',
  (r) => r.cpuMsPerRequest.app <= 1 && r.ratio >= 0.4,
  (r) =>
    `app CPU ${ms(r.cpuMsPerRequest.app)}, ratio ${r.ratio}; stack ${ms(r.cpuMsPerRequest.stack)}, database ${ms(r.cpuMsPerRequest.database)}`,
)
const pricing = row('GET /pricing (anonymous)')
if (pricing)
  target(
    '/pricing: app CPU <= 1.5 ms per request',
    pricing.cpuMsPerRequest.app <= 1.5,
    `app CPU ${ms(pricing.cpuMsPerRequest.app)}, ${pricingFromCache ? '' : 'NOT '}from the anonymous page cache; rendered: ${ms(row('GET /pricing (a cookie: rendered)')?.cpuMsPerRequest.app)}`,
  )
targets(
  ['GET /dashboard (signed in)', 'GET /dashboard/settings/billing (signed in)'],
  '%s: app CPU <= 2.5 ms per request, p99 < 100 ms at 10 connections',
  (r) => r.cpuMsPerRequest.app <= 2.5 && r.p99 < 100 && r.errors === 0,
  (r) => `app CPU ${ms(r.cpuMsPerRequest.app)}, p99 ${r.p99} ms, ${r.errors} errors`,
  false,
)
const webhookRows = rows.filter((r) => r.path.startsWith('/api/webhooks/'))
const webhooks50 = webhookRows.filter((r) => r.connections === 50)
if (webhooks50.length > 0)
  target(
    'every webhook path p99 < 100 ms at 50 connections',
    webhooks50.every((r) => r.p99 < 100),
    webhooks50.map((r) => `${r.name} ${r.p99} ms`).join(', '),
  )
// 100× data: the ratio to the same phase's bare route at least 0.8× the small run's, the
// database's CPU per request at most 1.2× (+0.1 ms, for the paths that barely touch it).
for (const big of rows.filter((r) => r.bigData && !r.bare)) {
  const small = row(big.name.slice(0, -BIG_DATA_SUFFIX.length))
  if (!small) continue
  const ratio = small.ratio > 0 ? Math.round((big.ratio / small.ratio) * 100) / 100 : 0
  const db = (r: Row) => r.cpuMsPerRequest.database ?? r.cpuMsPerRequest.stack ?? 0
  target(
    `100x data, ${small.name}: within 20 % of the small database`,
    ratio >= 0.8 && db(big) <= db(small) * 1.2 + 0.1 && big.errors === 0,
    `x bare ${small.ratio} -> ${big.ratio}; database CPU ${ms(db(small))} -> ${ms(db(big))}; p99 ${small.p99} -> ${big.p99} ms`,
    Number.isFinite(small.ratio) && Number.isFinite(big.ratio),
  )
}
// The database's work per request (docs/performance.md), independent of the machine; the
// 0.02 is for anything else the stack does meanwhile.
const work = (names: string[], wanted: string, ok: (d: StatementTotals) => boolean) => {
  for (const name of names) {
    const d = row(name)?.database
    if (d)
      check(
        `database work: ${name}`,
        ok(d),
        `${wanted}: answers ${JSON.stringify(d.statuses)}; ${d.statements} statements (rate limiter ${d.rateLimitCalls}, ledger ${d.ledgerCalls}), ${d.rowsWritten} rows written, ${d.blocksTouched} blocks`,
      )
  }
}
const SLACK = 0.02
const ANONYMOUS = ['GET / (anonymous)', 'GET /pricing (anonymous)']
work(ANONYMOUS, 'no statement', (d) => d.statements <= SLACK)
work(
  ['GET /dashboard (signed in)', 'GET /dashboard/settings/billing (signed in)'],
  'at most 2 statements, no row written',
  (d) => d.statements <= 2 + SLACK && d.rowsWritten <= SLACK,
)
work(
  [
    'stripe webhook, unique writes',
    'stripe webhook, unique writes @10',
    'polar webhook, unique writes',
  ],
  '1 ledger call, nothing else',
  (d) => d.ledgerCalls <= 1 + SLACK && d.statements <= 1 + SLACK,
)
work(
  ['stripe webhook, duplicates'],
  'at most 1 cheap statement (no row written, at most 10 blocks)',
  (d) => d.statements <= 1 + SLACK && d.rowsWritten <= SLACK && d.blocksTouched <= 10,
)
work(
  AUTH_FORMS.map((form) => form.name),
  'at most 1 rate-limit statement, whatever the number of counters',
  (d) => d.rateLimitCalls <= 1 + SLACK,
)
if (idle)
  check(
    'database work: an idle instance polls the outbox with one statement, an index probe',
    idle.polls >= 1 && idle.perPoll.outboxStatements <= 1 && /^Index/.test(idle.plan),
    `${idle.polls} polls in ${idle.seconds} s: ${idle.perPoll.outboxStatements} statements, ${idle.perPoll.outboxBlocks} blocks per poll; ${idle.plan}`,
  )
const webhookErrors = webhookRows.filter((r) => r.errors > 0)
if (rows.length > 0)
  check(
    'webhooks answer without errors',
    webhookErrors.length === 0,
    webhookErrors.map((r) => `${r.name}: ${JSON.stringify(r.statuses)}`).join('; ') || 'none',
  )
check(
  `first-load JS of every page <= ${kb(FIRST_LOAD_JS_BUDGET_BYTES)} gzip`,
  overBundle.length === 0,
  overBundle.map((page) => `${page.path} ${kb(page.gzipBytes)}`).join(', ') ||
    `largest: ${bundle[0]?.path} ${kb(bundle[0]?.gzipBytes ?? 0)}`,
)
if (Array.isArray(lighthouse)) {
  for (const score of lighthouse)
    check(
      `lighthouse ${score.path}: performance >= 95, accessibility 100`,
      (score.performance ?? 0) >= 95 && score.accessibility === 100,
      score.error ??
        `performance ${score.performance}, accessibility ${score.accessibility} ${score.failedAccessibility?.join(', ')}`,
    )
} else budgets.push({ name: 'lighthouse', status: 'report', detail: lighthouse.skipped })

console.log('\nBudgets:')
for (const budget of budgets)
  console.log(`  ${budget.status.toUpperCase().padEnd(6)} ${budget.name}: ${budget.detail}`)
const report = { date: new Date(), machine, durationSeconds: DURATION, runs: rows, signedInAuth }
const results = logFile('latest.json')
await writeFile(
  results,
  `${JSON.stringify({ ...report, bundle, bigData, idle, statementsSkipped, lighthouse, budgets }, null, 2)}\n`,
)
console.log(`figures written to ${results}`)
if (exitCode === 0 && !flags['no-budgets'] && budgets.some((budget) => budget.status === 'fail')) {
  console.error('a budget failed (run with --no-budgets to only report)')
  exitCode = 1
}
process.exit(exitCode)
