// `npm run dev`: the local stack and the Remix dev server, or the app alone (dev-plan.ts).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'

import { LOCAL_DEFAULTS } from '../app/env.server'
import { PROJECT_ROOT } from '../tests/local-stack/database'
import { DEV_DATA_DIR } from '../tests/local-stack/stack'
import { startAppStack, syncLocalProducts } from '../tests/setup/stack'
import { planDev } from './dev-plan'

const envFile = path.join(PROJECT_ROOT, '.env')
if (existsSync(envFile)) process.loadEnvFile(envFile)

const plan = planDev(process.env, LOCAL_DEFAULTS)
const siteUrl = plan.siteUrl
const stack = plan.localStack
  ? await startAppStack({
      siteUrl,
      ports: plan.ports,
      databaseUrl: process.env.DATABASE_URL,
      dataDir: process.env.DATABASE_URL ? undefined : DEV_DATA_DIR,
    })
  : null

// .env wins over the stack's values, so the app can be pointed at real services. The dev
// server says it is development (the production entry, server.js, assumes production).
const appEnv: NodeJS.ProcessEnv = { ...process.env, ...stack?.env, NODE_ENV: 'development' }
for (const key of Object.keys(stack?.env ?? {})) {
  if (process.env[key] !== undefined) appEnv[key] = process.env[key]
}
// The dev server's port (vite.config.ts), and the site on it.
Object.assign(appEnv, { LOCAL_APP_PORT: String(plan.ports.app), SITE_URL: siteUrl })

if (stack) {
  const database = process.env.DATABASE_URL
    ? 'PostgreSQL server (DATABASE_URL)'
    : `PGlite in ${path.relative(PROJECT_ROOT, DEV_DATA_DIR)}`
  const payments = { Stripe: stack.stripe, Polar: stack.polar }
  const standIns = Object.entries(payments).flatMap(([name, emulator]) =>
    emulator
      ? [`    ${name.padEnd(9)} ${emulator.url}   deliveries ${emulator.url}/_emulator/deliveries`]
      : [],
  )
  console.log(
    [
      '',
      `  Local stack is up (${database}; ${plan.reason}):`,
      `    Supabase  ${stack.supabase.url}   inbox ${stack.supabase.url}/_inbox   users ${stack.supabase.url}/_users`,
      ...standIns,
      `    SMTP      ${stack.smtp.url}   mails land in the inbox above`,
      `  App         ${siteUrl}`,
      '',
    ].join('\n'),
  )
  // The running providers' products, from their stand-ins, unless .env points elsewhere.
  if (
    appEnv.SUPABASE_URL === stack.env.SUPABASE_URL &&
    appEnv.STRIPE_API_URL === stack.env.STRIPE_API_URL
  ) {
    Object.assign(process.env, appEnv)
    await syncLocalProducts(stack)
  }
} else {
  console.log(`\n  App alone (${plan.reason}): ${siteUrl}\n`)
}

const remix = path.join(PROJECT_ROOT, 'node_modules/@remix-run/dev/dist/cli.js')
const options = { cwd: PROJECT_ROOT, stdio: 'inherit', env: appEnv } as const
const app = spawn(process.execPath, [remix, 'vite:dev'], options)

let stopping = false
async function stop(code = 0) {
  if (stopping) return
  stopping = true
  app.kill('SIGTERM')
  await stack?.close()
  process.exit(code)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
app.on('exit', (code) => void stop(code ?? 0))
