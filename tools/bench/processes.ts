// The bench's processes: the local stack in its own (no event loop shared with the load
// generator), the bare Remix app under `remix-serve` (the floor) and the production server.
import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process'
import { mkdirSync, openSync } from 'node:fs'
import path from 'node:path'

import { PLAN_DEFINITIONS, planIdSettings } from '../../app/billing/plans'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { PROJECT_ROOT } from '../../tests/local-stack/database'
import { bin, build, sleep, startServer, waitUntilUp } from '../setup'

export const BUILD_DIR = process.env.BUILD_DIR ?? '.build-bench'
export const BARE_BUILD_DIR = '.build-bench-bare'

export function buildForBench(log: (line: string) => void) {
  log(`building into ${BUILD_DIR} and ${BARE_BUILD_DIR}`)
  build(BUILD_DIR)
  build(BARE_BUILD_DIR, ['--config', 'tools/bench/bare-remix/vite.config.ts'])
}

const children: ChildProcess[] = []
let stackProcess: ChildProcess | undefined

/** Stops every process started here (the stack drops its database). */
export async function shutdown() {
  stackProcess?.send({ type: 'close' })
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
  await sleep(300)
}
process.on('SIGINT', () => void shutdown().then(() => process.exit(130)))

/** V8 CPU profiles of a process into BENCH_CPU_PROF/<dir>, written when it stops. */
const cpuProfile = (dir: string) =>
  process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', path.join(process.env.BENCH_CPU_PROF, dir)]
    : []

export function logFile(name: string) {
  mkdirSync(path.join(PROJECT_ROOT, 'bench-results'), { recursive: true })
  return path.join(PROJECT_ROOT, 'bench-results', name)
}

export interface StackReady {
  env: Record<string, string>
  database: string
  databaseUrl?: string
  pid: number
}

export function startStack(
  siteUrl: string,
  ports: { supabase: number; stripe: number; polar: number },
  pool = { size: 10, acquisitionTimeoutMs: 10_000 },
): Promise<StackReady> {
  const args = [...cpuProfile('stack'), '--import', 'tsx', 'tools/bench/stack-process.ts']
  const env = { ...process.env, BENCH_STACK: JSON.stringify({ siteUrl, ports, pool }) }
  const stdio: StdioOptions = ['ignore', 'inherit', 'inherit', 'ipc']
  const child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio, env })
  stackProcess = child
  children.push(child)
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`local stack exited with ${code}`)))
    child.on('message', (message: Omit<StackReady, 'pid'> & { type: string }) => {
      if (message.type === 'ready') resolve({ ...message, pid: child.pid ?? 0 })
    })
  })
}

/** The local stack's Supabase requests so far, by path (`/auth/v1/…`, `rest:<path>`). */
export function supabaseCounts(): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    const onMessage = (message: { type: string; counts: Record<string, number> }) => {
      if (message.type !== 'counts') return
      stackProcess?.off('message', onMessage)
      resolve(message.counts)
    }
    stackProcess?.on('message', onMessage)
    stackProcess?.send({ type: 'counts' })
  })
}

/** The floor, in production mode. */
export async function startBare(port: number) {
  const out = openSync(logFile('bare.log'), 'w')
  const bare = spawn(
    process.execPath,
    [...cpuProfile('bare'), bin('remix-serve'), path.join(BARE_BUILD_DIR, 'server/index.js')],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', out, out],
      env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1' },
    },
  )
  children.push(bare)
  return waitUntilUp(`http://127.0.0.1:${port}/text`, bare)
}

export async function startApp(port: number, env: Record<string, string>, logName = 'server.log') {
  const app = await startServer({
    port,
    buildDir: BUILD_DIR,
    logFile: logFile(logName),
    nodeArgs: cpuProfile(''),
    env: {
      ...env,
      // Production refuses the local stack's keys and loopback hosts unless this bench-only
      // allowance is set and every host is loopback (app/env.server.ts); it requires the plan
      // ids (the stand-ins' catalogue), a sender and a team address (mails go to the stack).
      NODE_ENV: 'production',
      BENCH_ALLOW_LOCAL_STACK: '1',
      ...planIdSettings(PLAN_DEFINITIONS),
      MAIL_FROM: LOCAL_DEFAULTS.MAIL_FROM,
      CONTACT_TO: LOCAL_DEFAULTS.CONTACT_TO,
      TRUSTED_PROXY_COUNT: '1',
      LOG_LEVEL: 'info',
    },
  })
  children.push(app)
  return app
}
