/**
 * The benchmark's processes: the local stack (stack-process.ts, its own process with an IPC
 * channel), the bare Remix app under `remix-serve` (the floor) and the production server
 * (server.js, as `npm start`), each on loopback, and their shutdown. Used by `run.ts` (the
 * CPU and load figures) and `latency.ts` (the round trips at a network distance).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { openSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'

import { PLAN_DEFINITIONS, planIdSettings } from '../../app/billing/plans'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { PROJECT_ROOT } from '../../tests/local-stack/database'

export const bin = (name: string) => path.join(PROJECT_ROOT, 'node_modules/.bin', name)

/** Builds the app into `buildDir` and the bare Remix app (the floor) into `bareBuildDir`. */
export function buildForBench(buildDir: string, bareBuildDir: string, log: (line: string) => void) {
  log(`building into ${buildDir}`)
  const build = spawnSync(bin('remix'), ['vite:build'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, BUILD_DIR: buildDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (build.status !== 0) throw new Error('build failed')
  log(`building the bare Remix app into ${bareBuildDir}`)
  const bare = spawnSync(
    bin('remix'),
    ['vite:build', '--config', 'tools/bench/bare-remix/vite.config.ts'],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, BUILD_DIR: bareBuildDir },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  )
  if (bare.status !== 0) throw new Error('bare Remix build failed')
}

const children: ChildProcess[] = []
let stackProcess: ChildProcess | undefined

/** Stops every process started here (the stack closes its database first). */
export async function shutdown() {
  stackProcess?.send({ type: 'close' })
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
  await new Promise((resolve) => setTimeout(resolve, 300))
}
process.on('SIGINT', () => void shutdown().then(() => process.exit(130)))

/** V8 CPU profiles of a process into BENCH_CPU_PROF/<dir>, written when it stops. */
const cpuProfile = (dir: string) =>
  process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', path.join(process.env.BENCH_CPU_PROF, dir)]
    : []

export interface StackReady {
  env: Record<string, string>
  database: string
  databaseUrl?: string
  pid: number
}

export function startStack(siteUrl: string): Promise<StackReady> {
  const child = spawn(
    process.execPath,
    [
      ...cpuProfile('stack'),
      '--import',
      'tsx',
      path.join(PROJECT_ROOT, 'tools/bench/stack-process.ts'),
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, BENCH_SITE_URL: siteUrl },
    },
  )
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

/** Waits until `url` answers 200, or throws when the process ends or 30 s pass. */
async function waitUntilServing(child: ChildProcess, url: string, logFile: string) {
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${url}: server exited with ${child.exitCode}, see ${logFile}`)
    const up = await fetch(url).then(
      async (response) => {
        await response.arrayBuffer()
        return response.ok
      },
      () => false,
    )
    if (up) return
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 30 s`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function logTo(name: string) {
  await mkdir(path.join(PROJECT_ROOT, 'bench-results'), { recursive: true })
  const logFile = path.join(PROJECT_ROOT, 'bench-results', name)
  return { logFile, out: openSync(logFile, 'w') }
}

/** The floor: the bare Remix app under `remix-serve`, in production mode (its log: bench-results/bare.log). */
export async function startBare(port: number, buildDir: string) {
  const { logFile, out } = await logTo('bare.log')
  const bare = spawn(
    process.execPath,
    [...cpuProfile('bare'), bin('remix-serve'), path.join(buildDir, 'server/index.js')],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', out, out],
      env: { ...process.env, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1' },
    },
  )
  children.push(bare)
  await waitUntilServing(bare, `http://127.0.0.1:${port}/text`, logFile)
  return bare
}

/** The production server (server.js) on `port`, against the stack's environment `env`. */
export async function startApp(options: {
  port: number
  buildDir: string
  env: Record<string, string>
  logName?: string
}) {
  const { logFile, out } = await logTo(options.logName ?? 'server.log')
  const app = spawn(
    process.execPath,
    [
      ...cpuProfile(''),
      path.join(PROJECT_ROOT, 'server.js'),
      path.join(options.buildDir, 'server/index.js'),
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', out, out],
      env: {
        ...process.env,
        ...options.env,
        // Production mode, as deployed. The local stack's keys and loopback hosts are allowed
        // by the bench-only allowance, which the app refuses unless every host is loopback
        // (app/env.server.ts); production requires the plan ids, here the catalogue's (the emulators').
        NODE_ENV: 'production',
        BENCH_ALLOW_LOCAL_STACK: '1',
        ...planIdSettings(PLAN_DEFINITIONS),
        // Production requires a sender and a team address; the mails go to the stack's SMTP inbox (SMTP_URL).
        MAIL_FROM: LOCAL_DEFAULTS.MAIL_FROM,
        CONTACT_TO: LOCAL_DEFAULTS.CONTACT_TO,
        PORT: String(options.port),
        HOST: '127.0.0.1',
        TRUSTED_PROXY_COUNT: '1',
        LOG_LEVEL: 'info',
      },
    },
  )
  children.push(app)
  await waitUntilServing(app, `http://127.0.0.1:${options.port}/healthz`, logFile)
  return app
}
