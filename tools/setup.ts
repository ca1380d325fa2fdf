// What the soak and the bench share around the local stack (tests/setup/stack.ts).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { openSync } from 'node:fs'
import http from 'node:http'
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
export const round = (value: number) => Math.round(value * 100) / 100
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

export const offsetPorts = <T extends Record<string, number>>(ports: T, offset: number) =>
  Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, port + offset])) as {
    [K in keyof T]: number
  }

/** `[name 12.3s] message` lines, timed from now. */
export function logger(name: string) {
  const started = Date.now()
  const elapsed = () => ((Date.now() - started) / 1000).toFixed(1)
  return { elapsed, log: (message: string) => console.log(`[${name} ${elapsed()}s] ${message}`) }
}

/**
 * One request by node:http (fetch would not send the Host header an auth form names): its
 * status (0 for no answer, or none within `timeoutMs`) and headers.
 */
export function send(options: http.RequestOptions, body?: string, timeoutMs?: number) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve) => {
    const outgoing = http.request({ host: '127.0.0.1', ...options }, (answer) => {
      answer.resume()
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers }))
      answer.on('error', () => resolve({ status: 0, headers: {} }))
    })
    if (timeoutMs) outgoing.setTimeout(timeoutMs, () => outgoing.destroy())
    outgoing.on('error', () => resolve({ status: 0, headers: {} }))
    outgoing.end(body)
  })
}

/** Waits until `url` answers 2xx, or `child` exits, or 30 s pass. */
export async function waitUntilUp<C extends ChildProcess & { errors?: string[] }>(
  url: string,
  child: C,
) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) {
    if (child.exitCode !== null) throw new Error(`${url}: exited ${child.errors?.join('') ?? ''}`)
    if ((await fetch(url).catch(() => null))?.ok) return child
  }
  throw new Error(`${url} did not answer within 30 s`)
}

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

/** The production server (`npm start`) on `port`, once up; output to `logFile`, or to `errors`. */
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
  return waitUntilUp(`http://127.0.0.1:${options.port}/healthz?live`, child)
}

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
