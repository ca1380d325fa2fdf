/**
 * What the soak and the bench both set up around the local stack (tests/setup/stack.ts): a
 * build, a scratch database on the PostgreSQL server, production server instances, users,
 * and webhook deliveries signed as each provider signs them.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { openSync } from 'node:fs'
import path from 'node:path'

import { createClient } from '@supabase/supabase-js'
import pg from 'pg'
import Stripe from 'stripe'

import { LOCAL_DEFAULTS } from '../app/env.server'
import { createAccount } from '../tests/integration/accounts'
import { PROJECT_ROOT, withDatabaseName } from '../tests/local-stack/database'
import { signWebhook } from '../tests/local-stack/polar/webhooks'
import { LOCAL_SERVICE_ROLE_KEY } from '../tests/local-stack/supabase/keys'

export const bin = (name: string) => path.join(PROJECT_ROOT, 'node_modules/.bin', name)
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `remix vite:build` into `buildDir` (another app with `config`). */
export function build(buildDir: string, config: string[] = []) {
  const result = spawnSync(bin('remix'), ['vite:build', ...config], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, BUILD_DIR: buildDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (result.status !== 0) throw new Error(`build into ${buildDir} failed`)
}

/** A new database on the server of DATABASE_URL, and how to drop it. */
export async function scratchDatabase(prefix: string) {
  const serverUrl = process.env.DATABASE_URL!
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    await client.query(sql).finally(() => client.end())
  }
  await admin(`create database ${name}`)
  return {
    name,
    url: withDatabaseName(serverUrl, name),
    admin,
    drop: () => admin(`drop database if exists ${name} with (force)`).catch(() => {}),
  }
}

export type Server = ChildProcess & { errors: string[] }

/**
 * The production server (server.js, as `npm start`) on `port` with `env`, once it answers
 * `/healthz?live`. Its output goes to `logFile`, else its first errors to `errors`.
 */
export async function startServer(options: {
  port: number
  buildDir: string
  env: Record<string, string | undefined>
  logFile?: string
  nodeArgs?: string[]
}) {
  const out = options.logFile ? openSync(options.logFile, 'w') : 'ignore'
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env }
  env.PORT = String(options.port)
  env.HOST = '127.0.0.1'
  // The app is pointed at the stack's database through its Supabase stand-in only.
  delete env.DATABASE_URL
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      path.join(PROJECT_ROOT, 'server.js'),
      path.join(options.buildDir, 'server/index.js'),
    ],
    { cwd: PROJECT_ROOT, env, stdio: ['ignore', out, options.logFile ? out : 'pipe'] },
  ) as Server
  child.errors = []
  child.stderr?.on('data', (chunk: Buffer) => {
    if (child.errors.length < 40) child.errors.push(chunk.toString())
  })
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) {
    if (child.exitCode !== null)
      throw new Error(`server on ${options.port} exited: ${child.errors.join('')}`)
    const up = await fetch(`http://127.0.0.1:${options.port}/healthz?live`).then(
      (response) => response.ok,
      () => false,
    )
    if (up) return child
  }
  throw new Error(`server on ${options.port} did not answer /healthz?live within 30 s`)
}

/** Stops a server and waits for it to exit. */
export async function stopServer(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  child.kill(signal)
  return exited
}

/** `count` confirmed users (tests/integration/accounts.ts), 16 at a time. */
export async function createUsers(supabaseUrl: string, count: number, label: string) {
  const admin = createClient(supabaseUrl, LOCAL_SERVICE_ROLE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })
  const users: { id: string; email: string; password: string }[] = new Array(count)
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let index = next++; index < count; index = next++)
        users[index] = await createAccount(admin, `${label}-${index}@example.com`)
    }),
  )
  return users
}

/** The headers of a webhook delivery of `body`, signed now as its provider signs. */
export function signedHeaders(
  provider: 'stripe' | 'polar',
  body: string,
  id: string,
): Record<string, string> {
  if (provider === 'stripe')
    return {
      'content-type': 'application/json',
      'stripe-signature': Stripe.webhooks.generateTestHeaderString({
        payload: body,
        secret: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
      }),
    }
  const timestamp = Math.floor(Date.now() / 1000)
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET, id, timestamp, body),
  }
}
