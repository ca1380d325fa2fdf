// `npm run bench -- --rtt 40` (docs/performance.md, "Round trips at a distance"): each path
// alone, alternately near and at RTT. Flags: --no-build, --no-budgets, --no-big-data,
// --port-offset <n>. Writes bench-results/latency.json.
import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'

import { TOOL_PORTS } from '../ports'
import { build, offsetPorts, percentile, round } from '../setup'
import { seedBigData } from './big-data'
import { startDelayProxy } from './delay-proxy'
import { benchFixtures, type Request } from './fixtures'
import { BUILD_DIR, logFile, shutdown, startApp, startStack, supabaseCounts } from './processes'

const { values: flags } = parseArgs({
  strict: false,
  options: {
    rtt: { type: 'string', default: '40' },
    'port-offset': { type: 'string', default: '0' },
  },
})
const RTT = Number(flags.rtt)
const REPEATS = 15 // an odd number of pairs: the median is one of them
const PORTS = offsetPorts(TOOL_PORTS.bench, Number(flags['port-offset']))
const ORIGIN = `http://127.0.0.1:${PORTS.app}`
const log = (message: string) => console.log(`[latency] ${message}`)
const median = (values: number[]) => percentile(values, 0.5)
const medianMs = (timings: { ms: number }[]) => round(median(timings.map((timing) => timing.ms)))
const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0)

/** `limit`: the largest round trips allowed (1.2: one, with the measurement's noise). */
interface Path {
  name: string
  limit: number
  path: string
  method?: string
  next?: () => Request
}
const results: {
  name: string
  data: string
  supabaseRequests: number
  roundTrips: number
  ms: { near: number; far: number }
  ttfbMs: number
  statuses: number[]
  limit: number
}[] = []

if (!process.argv.includes('--no-build')) build(BUILD_DIR)
let exitCode = 0
const proxy = { close: async () => {} }
try {
  const stack = await startStack(`http://localhost:${PORTS.app}`, PORTS)
  const delay = await startDelayProxy(stack.env.SUPABASE_URL)
  proxy.close = delay.close
  const env = { ...stack.env, SUPABASE_URL: delay.url }
  await startApp(PORTS.app, env, 'latency-server.log')
  const fixtures = await benchFixtures(ORIGIN, env)
  log(`stack (${stack.database}) and app up, Supabase behind a delaying proxy; fixtures ready`)
  const page = (path: string): Path => ({
    name: `GET ${path} (signed in)`,
    limit: 1.2,
    path,
    next: () => ({ headers: { cookie: fixtures.cookie } }),
  })
  const hook = (name: string, limit: number, provider: string, next: () => Request) =>
    ({ name, limit, path: `/api/webhooks/${provider}`, method: 'POST', next }) as Path
  const paths: Path[] = [
    ...['/dashboard', '/dashboard/settings/billing', '/dashboard/settings/general'].map(page),
    ...['/dashboard/settings/account', '/pricing'].map(page),
    hook('POST Stripe webhook, new event', 1.2, 'stripe', fixtures.stripeWrite),
    hook('POST Stripe webhook, duplicate', 0.5, 'stripe', fixtures.duplicateWrite),
    hook('POST Polar webhook, new event', 1.2, 'polar', fixtures.polarWrite),
  ]
  const timed = async (path: Path, rtt: number) => {
    delay.setRtt(rtt)
    const { body, headers } = path.next?.() ?? {}
    const start = performance.now()
    const init: RequestInit = { method: path.method, body, headers, redirect: 'manual' }
    const response = await fetch(`${ORIGIN}${path.path}`, init)
    const ttfbMs = performance.now() - start
    await response.arrayBuffer()
    return { ms: performance.now() - start, ttfbMs, status: response.status }
  }
  const measure = async (data: string) => {
    for (const path of paths) {
      for (const rtt of [0, RTT, 0, RTT]) await timed(path, rtt) // a warm-up, not reported
      const near = []
      const far = []
      const counts = []
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        const before = total(await supabaseCounts())
        near.push(await timed(path, 0))
        counts.push(total(await supabaseCounts()) - before)
        far.push(await timed(path, RTT))
      }
      delay.setRtt(0)
      const ms = { near: medianMs(near), far: medianMs(far) }
      const row = {
        name: path.name,
        data,
        limit: path.limit,
        supabaseRequests: median(counts),
        roundTrips: round((ms.far - ms.near) / RTT),
        ms,
        ttfbMs: round(median(far.map((s) => s.ttfbMs))),
        statuses: [...new Set([...near, ...far].map((s) => s.status))],
      }
      results.push(row)
      log(`${path.name}${data}: ${JSON.stringify(row)}`)
    }
  }
  await measure('')
  if (stack.databaseUrl && !process.argv.includes('--no-big-data')) {
    await seedBigData(stack.databaseUrl, fixtures.reader.id)
    await measure(' [100x data]')
  }
} catch (error) {
  console.error(error)
  exitCode = 2
} finally {
  await proxy.close()
  await shutdown()
}

// A signed-in page and a new webhook event wait for at most one round trip, a duplicate for
// none, /dashboard's first byte comes within RTT + 20 ms; with 100× data, the same round
// trips (±0.2) and the time at RTT within 20 %.
const targets = results.flatMap((row) => {
  const small = results.find((other) => !other.data && other.name === row.name)!
  if (row.data)
    return [
      [
        `${row.name}${row.data}: round trips ±0.2`,
        Math.abs(row.roundTrips - small.roundTrips) <= 0.2,
      ],
      [`${row.name}${row.data}: time at RTT within 20 %`, row.ms.far <= small.ms.far * 1.2],
    ] as const
  const ok = row.roundTrips <= row.limit && row.statuses.every((status) => status < 400)
  const checks: (readonly [string, boolean])[] = [
    [`${row.name}: round trips ${row.roundTrips} ≤ ${row.limit}`, ok],
  ]
  if (row.name === 'GET /dashboard (signed in)')
    checks.push([`${row.name}: first byte ${row.ttfbMs} ms ≤ RTT + 20 ms`, row.ttfbMs <= RTT + 20])
  return checks
})
console.log(`\nround trips at ${RTT} ms, ${REPEATS} pairs per path:`)
for (const [name, ok] of targets) console.log(`  ${ok ? 'PASS' : 'FAIL'}   ${name}`)
await writeFile(
  logFile('latency.json'),
  `${JSON.stringify({ date: new Date(), rttMs: RTT, results }, null, 2)}\n`,
)
if (exitCode === 0 && !process.argv.includes('--no-budgets') && targets.some(([, ok]) => !ok)) {
  console.error('a round-trip target was missed (run with --no-budgets to only report)')
  exitCode = 1
}
process.exit(exitCode)
