/**
 * CPU of the calling process per PostgREST RPC call: supabase-js's `rpc` against the app's
 * database gateway, `app/lib/database/database.server.ts` (docs/performance.md, "Where the time goes").
 * Starts the bench's local stack (PGlite, its own process, ports `TOOL_PORTS.rpcCost` of tools/ports.ts), warms
 * both up, then makes `session_is_active` calls one at a time and divides this process's CPU
 * time by their number; three rounds each.
 *
 *   node --import tsx tools/bench/rpc-cost.ts [calls=1500]
 */
import { fork } from 'node:child_process'
import path from 'node:path'

import { PROJECT_ROOT } from '../../tests/local-stack/database'
import { TOOL_PORTS } from '../ports'

const calls = Number(process.argv[2] ?? 1500)
const stack = fork(path.join(PROJECT_ROOT, 'tools/bench/stack-process.ts'), [], {
  execArgv: ['--import', 'tsx'],
  env: {
    ...process.env,
    DATABASE_URL: '',
    BENCH_SUPABASE_PORT: String(TOOL_PORTS.rpcCost.supabase),
    BENCH_STRIPE_PORT: String(TOOL_PORTS.rpcCost.stripe),
    BENCH_POLAR_PORT: String(TOOL_PORTS.rpcCost.polar),
  },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
})
const ready = await new Promise<{ env: Record<string, string> }>((resolve) =>
  stack.on('message', (message: { type: string; env: Record<string, string> }) => {
    if (message.type === 'ready') resolve(message)
  }),
)
Object.assign(process.env, ready.env, { NODE_ENV: 'test' })
const { getSupabaseAdmin } = await import('../../app/lib/database/supabase-admin.server')
const { database } = await import('../../app/lib/database/database.server')

const args = {
  p_session_id: '00000000-0000-4000-8000-000000000001',
  p_user_id: '00000000-0000-4000-8000-000000000002',
}
const ways: Record<string, () => PromiseLike<{ error: unknown }>> = {
  'supabase-js rpc': () => getSupabaseAdmin().rpc('session_is_active', args),
  'gateway (postgrest-js, fetch)': () => database().rpc('session_is_active', args),
  // A client made per call, as for a signed-in user's reads (here with the service role's
  // token, which may call this function).
  'gateway, a client per call': () =>
    database({ asUser: { accessToken: process.env.SUPABASE_SERVICE_ROLE_KEY! } }).rpc(
      'session_is_active',
      args,
    ),
}

async function cpuPerCall(call: () => PromiseLike<{ error: unknown }>, count: number) {
  const before = process.cpuUsage()
  for (let index = 0; index < count; index++) {
    const { error } = await call()
    if (error) throw new Error(`call failed: ${JSON.stringify(error)}`)
  }
  const used = process.cpuUsage(before)
  return (used.user + used.system) / count / 1000
}

try {
  for (const call of Object.values(ways)) await cpuPerCall(call, 300)
  for (let round = 1; round <= 3; round++) {
    for (const [name, call] of Object.entries(ways)) {
      console.log(
        `round ${round}, ${name}: ${(await cpuPerCall(call, calls)).toFixed(3)} ms CPU per call`,
      )
    }
  }
} finally {
  stack.send({ type: 'close' })
}
