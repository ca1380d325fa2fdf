/**
 * `npm run bench -- --rtt 40`: the round trips to Supabase that each path waits for, one after
 * another, at a network distance (docs/performance.md, "Round trips at a distance").
 *
 * Starts the local stack and the production server (server.js, NODE_ENV=production) with a
 * delaying proxy between the app and Supabase (delay-proxy.ts: half the round-trip time each
 * way, a round trip for a new connection). For every path it sends requests one at a time,
 * alternating between no delay and the round-trip time RTT on the same server, and reports:
 * - the Supabase requests the path makes (the stack's own count, median per request);
 * - the sequential round trips: (median time at RTT − median time at 0) / RTT;
 * - the time to first byte at RTT (median).
 * On the PostgreSQL server it then seeds 100× data (big-data.ts) and measures every path again.
 * Then the targets (signed-in pages and new webhook events ≤ 1.2 round trips, duplicates none,
 * `/dashboard`'s first byte ≤ RTT + 20 ms; with 100× data, every path's round trips within
 * 0.2 of the small run's and its time at RTT within 20 %); it exits 1 when one is missed,
 * unless --no-budgets. Writes bench-results/latency.json.
 *
 * Flags: --rtt <ms> (default 40), --repeats <n> (pairs per path, default 15), --no-build,
 * --no-budgets, --no-big-data. Environment: BENCH_APP_PORT (4900), BENCH_SUPABASE_PORT / BENCH_STRIPE_PORT /
 * BENCH_POLAR_PORT, BUILD_DIR (.build-bench), DATABASE_URL (a PostgreSQL server instead of PGlite).
 */
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import {
  polarEvent,
  subscriptionObject as polarSubscriptionObject,
} from '../../tests/integration/polar-fixtures'
import { stripeEvent, subscriptionObject } from '../../tests/integration/stripe-fixtures'
import { PROJECT_ROOT } from '../../tests/local-stack/database'
import { TOOL_PORTS } from '../ports'
import { BIG_DATA, seedBigData } from './big-data'
import { startDelayProxy } from './delay-proxy'
import {
  createUsers,
  polarHeaders,
  post,
  seedSubscriber,
  signInCookie,
  stripeHeaders,
} from './fixtures'
import { bin, shutdown, startApp, startStack, supabaseCounts } from './processes'

const argv = process.argv.slice(2)
const flag = (name: string) => argv.includes(name)
const option = (name: string, fallback: number) => {
  const index = argv.indexOf(name)
  const value = index >= 0 ? Number(argv[index + 1]) : fallback
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} needs a positive number`)
  return value
}
const RTT = option('--rtt', 40)
const REPEATS = option('--repeats', 15)
const BUILD_DIR = process.env.BUILD_DIR ?? '.build-bench'
const APP_PORT = Number(process.env.BENCH_APP_PORT ?? TOOL_PORTS.bench.app)
const ORIGIN = `http://127.0.0.1:${APP_PORT}`
const SITE_URL = `http://localhost:${APP_PORT}`
const started = Date.now()
const log = (message: string) =>
  console.log(`[latency ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`)

interface Path {
  name: string
  kind: 'page' | 'webhook' | 'duplicate'
  /** A fresh request each time (method, path, headers, body). */
  request: () => { path: string; init: RequestInit }
}

interface Sample {
  ms: number
  ttfbMs: number
}

interface PathFigures {
  name: string
  /** '' for the small run, '100x data' after seeding. */
  data: string
  kind: Path['kind']
  supabaseRequests: number
  roundTrips: number
  medianMs: { near: number; far: number }
  ttfbMsAtRtt: number
  statuses: number[]
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits
const totalCount = (counts: Record<string, number>) =>
  Object.values(counts).reduce((sum, value) => sum + value, 0)

async function timed(path: Path): Promise<Sample & { status: number }> {
  const { path: pathname, init } = path.request()
  const start = performance.now()
  const response = await fetch(`${ORIGIN}${pathname}`, { redirect: 'manual', ...init })
  const ttfbMs = performance.now() - start
  await response.arrayBuffer()
  return { ms: performance.now() - start, ttfbMs, status: response.status }
}

if (!flag('--no-build')) {
  log(`building into ${BUILD_DIR}`)
  const build = spawnSync(bin('remix'), ['vite:build'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, BUILD_DIR },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (build.status !== 0) throw new Error('build failed')
}

const results: PathFigures[] = []
let exitCode = 0
let database = ''
const proxy = { close: async () => {} }
try {
  const stack = await startStack(SITE_URL)
  database = stack.database
  const delay = await startDelayProxy(stack.env.SUPABASE_URL)
  proxy.close = delay.close
  const env = { ...stack.env, SUPABASE_URL: delay.url }
  await startApp({ port: APP_PORT, buildDir: BUILD_DIR, env, logName: 'latency-server.log' })
  log(`stack (${database}) and app up; Supabase behind a delaying proxy at ${delay.url}`)

  const [[reader], stripeUsers, polarUsers] = await Promise.all([
    createUsers(stack.env.SUPABASE_URL, 1, 'latency-reader'),
    createUsers(stack.env.SUPABASE_URL, 4, 'latency-stripe'),
    createUsers(stack.env.SUPABASE_URL, 4, 'latency-polar'),
  ])
  const cookie = await signInCookie(env, reader.email)
  await seedSubscriber(ORIGIN, reader, { label: 'latency', payments: 12 })
  const duplicate = JSON.stringify(
    stripeEvent(
      'customer.subscription.updated',
      subscriptionObject({ id: `sub_latency_dup`, userId: stripeUsers[0].id }),
      { id: `evt_latency_duplicate_${randomUUID()}`, created: 1_700_000_000 },
    ),
  )
  await post(ORIGIN, '/api/webhooks/stripe', duplicate, stripeHeaders(duplicate))
  log('fixtures ready: a signed-in subscriber with 12 payments, webhook users, a duplicate')

  let counter = 0
  const page = (pathname: string, name = `GET ${pathname} (signed in)`): Path => ({
    name,
    kind: 'page',
    request: () => ({ path: pathname, init: { headers: { cookie } } }),
  })
  const paths: Path[] = [
    page('/dashboard'),
    page('/dashboard/settings/billing'),
    page('/dashboard/settings/general'),
    page('/dashboard/settings/account'),
    page('/pricing'),
    {
      name: 'POST Stripe webhook, new event',
      kind: 'webhook',
      request: () => {
        const user = stripeUsers[counter++ % stripeUsers.length]
        const body = JSON.stringify(
          stripeEvent(
            'customer.subscription.updated',
            subscriptionObject({ id: `sub_latency_${user.id.slice(0, 8)}`, userId: user.id }),
            { id: `evt_latency_${randomUUID()}` },
          ),
        )
        return {
          path: '/api/webhooks/stripe',
          init: { method: 'POST', body, headers: stripeHeaders(body) },
        }
      },
    },
    {
      name: 'POST Stripe webhook, duplicate',
      kind: 'duplicate',
      request: () => ({
        path: '/api/webhooks/stripe',
        init: { method: 'POST', body: duplicate, headers: stripeHeaders(duplicate) },
      }),
    },
    {
      name: 'POST Polar webhook, new event',
      kind: 'webhook',
      request: () => {
        const user = polarUsers[counter++ % polarUsers.length]
        const body = JSON.stringify(
          polarEvent(
            'subscription.updated',
            polarSubscriptionObject({
              id: `00000000-0000-4000-8000-${user.id.slice(-12)}`,
              userId: user.id,
            }),
          ),
        )
        return {
          path: '/api/webhooks/polar',
          init: {
            method: 'POST',
            body,
            headers: polarHeaders(body, `msg_latency_${randomUUID()}`),
          },
        }
      },
    },
  ]

  const measure = async (data: string) => {
    for (const path of paths) {
      const near: Sample[] = []
      const far: Sample[] = []
      const counts: number[] = []
      const statuses = new Set<number>()
      // Warm-up at both distances (connections, caches), not reported.
      for (const rtt of [0, RTT, 0, RTT]) {
        delay.setRtt(rtt)
        await timed(path)
      }
      for (let repeat = 0; repeat < REPEATS; repeat++) {
        delay.setRtt(0)
        const before = totalCount(await supabaseCounts())
        const close = await timed(path)
        counts.push(totalCount(await supabaseCounts()) - before)
        delay.setRtt(RTT)
        const distant = await timed(path)
        near.push(close)
        far.push(distant)
        statuses.add(close.status).add(distant.status)
      }
      delay.setRtt(0)
      const medianMs = {
        near: round(median(near.map((s) => s.ms))),
        far: round(median(far.map((s) => s.ms))),
      }
      const figures: PathFigures = {
        name: path.name,
        data,
        kind: path.kind,
        supabaseRequests: median(counts),
        roundTrips: round((medianMs.far - medianMs.near) / RTT),
        medianMs,
        ttfbMsAtRtt: round(median(far.map((s) => s.ttfbMs)), 1),
        statuses: [...statuses],
      }
      results.push(figures)
      log(
        `${path.name}${data ? ` [${data}]` : ''}: ${figures.supabaseRequests} Supabase requests, ${figures.roundTrips} round trips in sequence, ` +
          `${medianMs.near} → ${medianMs.far} ms, first byte at ${RTT} ms: ${figures.ttfbMsAtRtt} ms (${figures.statuses.join(', ')})`,
      )
    }
  }
  await measure('')
  if (stack.databaseUrl && !flag('--no-big-data')) {
    log(`seeding ${JSON.stringify(BIG_DATA)}`)
    const seeded = await seedBigData(stack.databaseUrl, reader.id)
    log(`seeded in ${seeded.seconds} s`)
    await measure('100x data')
  }
} catch (error) {
  console.error(error)
  exitCode = 2
} finally {
  await proxy.close()
  await shutdown()
}

// Targets: a signed-in page and a new webhook event wait for at most one round trip (1.2 with
// the measurement's noise), a duplicate for none (under half of one), and /dashboard's first
// byte comes within RTT + 20 ms.
const targets = results.flatMap((row) => {
  if (row.data) {
    // With 100× data: the same round trips, and the time at RTT within 20 % of the small run's.
    const small = results.find((other) => !other.data && other.name === row.name)
    if (!small) return []
    return [
      {
        name: `${row.name} [${row.data}]: round trips unchanged (±0.2)`,
        ok: Math.abs(row.roundTrips - small.roundTrips) <= 0.2,
        detail: `${small.roundTrips} → ${row.roundTrips}`,
      },
      {
        name: `${row.name} [${row.data}]: time at RTT within 20 %`,
        ok: row.medianMs.far <= small.medianMs.far * 1.2,
        detail: `${small.medianMs.far} → ${row.medianMs.far} ms`,
      },
    ]
  }
  const limit = row.kind === 'duplicate' ? 0.5 : 1.2
  const checks = [
    {
      name: `${row.name}: round trips ≤ ${row.kind === 'duplicate' ? '0 (< 0.5)' : '1.2'}`,
      ok: row.roundTrips <= limit && row.statuses.every((status) => status < 400),
      detail: `${row.roundTrips}`,
    },
  ]
  if (row.name.startsWith('GET /dashboard (signed in)'))
    checks.push({
      name: `${row.name}: first byte ≤ RTT + 20 ms`,
      ok: row.ttfbMsAtRtt <= RTT + 20,
      detail: `${row.ttfbMsAtRtt} ms`,
    })
  return checks
})

console.log(
  `\nround trips at ${RTT} ms (${database}, ${REPEATS} pairs per path, load ${os.loadavg()[0].toFixed(2)})`,
)
console.log('path | Supabase requests | round trips | ms at 0 | ms at RTT | first byte at RTT')
for (const row of results)
  console.log(
    `${row.name}${row.data ? ` [${row.data}]` : ''} | ${row.supabaseRequests} | ${row.roundTrips} | ${row.medianMs.near} | ${row.medianMs.far} | ${row.ttfbMsAtRtt}`,
  )
console.log('\nTargets:')
for (const target of targets)
  console.log(`  ${target.ok ? 'PASS' : 'FAIL'}   ${target.name}: ${target.detail}`)

await mkdir(path.join(PROJECT_ROOT, 'bench-results'), { recursive: true })
await writeFile(
  path.join(PROJECT_ROOT, 'bench-results/latency.json'),
  `${JSON.stringify(
    { date: new Date().toISOString(), rttMs: RTT, repeats: REPEATS, database, results, targets },
    null,
    2,
  )}\n`,
)
console.log('figures written to bench-results/latency.json')
if (exitCode === 0 && !flag('--no-budgets') && targets.some((target) => !target.ok)) {
  console.error('a round-trip target was missed (run with --no-budgets to only report)')
  exitCode = 1
}
process.exit(exitCode)
